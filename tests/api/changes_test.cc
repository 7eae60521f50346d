// The change feed (partkv/changes.h, docs/changes.md): every kind of change in both modes, order
// per key and across a batch, the origin of each change, paging and tokens (also across a reopen),
// retention and the Trimmed position, the feed turned on and off, a table dropped with its feed,
// and readers beside writers.

#include <atomic>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/front/front_access.h"
#include "engine/local/store_state.h"
#include "gtest/gtest.h"
#include "partkv/partkv.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

class ChangesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Open();
    TableOptions options;
    options.change_feed.enabled = true;
    ASSERT_OK(store_->CreateTable("Items", options));
    OpenItems();
  }

  void Open() {
    table_.reset();
    store_.reset();
    StoreOptions options;
    options.maintenance_interval = std::chrono::milliseconds(0);  // sweeps only when asked
    auto s = Store::Open(dir_.Sub("store"), options);
    ASSERT_OK(s);
    store_.emplace(std::move(*s));
    FrontAccess::Of(*store_).SetClockForTesting([this] { return now_.load(); });
  }
  void OpenItems() {
    auto t = store_->OpenTable("Items");
    ASSERT_OK(t);
    table_.emplace(std::move(*t));
  }

  static Entity Make(const std::string& pk, const std::string& rk, int n) {
    Entity e(pk, rk);
    e.Set("n", Value::Int32(n));
    return e;
  }

  // One page of `page` changes from `token` (or the start).
  Result<ChangesPage> ReadPage(ChangeFeedMode mode, uint32_t page, const std::string& token = "") {
    ChangesQuery q;
    q.mode = mode;
    q.page_size = page;
    q.continuation = token;
    return table_->ReadChanges(q);
  }

  // Every change from `token` (or the start) to the end, in pages of `page`.
  std::vector<Change> ReadAll(ChangeFeedMode mode, std::string* token = nullptr,
                              uint32_t page = 1000) {
    std::vector<Change> out;
    ChangesQuery q;
    q.mode = mode;
    q.page_size = page;
    if (token != nullptr) q.continuation = *token;
    for (int guard = 0; guard < 100000; ++guard) {
      auto p = table_->ReadChanges(q);
      EXPECT_OK(p);
      if (!p.ok()) break;
      EXPECT_LE(p->changes.size(), page);
      for (auto& c : p->changes) out.push_back(std::move(c));
      EXPECT_FALSE(p->continuation.empty());
      q.continuation = p->continuation;
      if (p->caught_up) break;
    }
    if (token != nullptr) *token = q.continuation;
    return out;
  }

  static std::string Describe(const std::vector<Change>& changes) {
    std::string out;
    for (const Change& c : changes) {
      if (!out.empty()) out += " ";
      out += std::string(ChangeOpName(c.op)) + ":" + c.entity.partition_key() + "/" +
             c.entity.row_key();
      if (const Value* n = c.entity.Get("n")) out += "=" + std::to_string(n->as_int32());
    }
    return out;
  }

  // Describe's, each change followed by its origin: "insert:p/a=1:sync".
  static std::string DescribeOrigins(const std::vector<Change>& changes) {
    std::string out;
    for (const Change& c : changes) {
      if (!out.empty()) out += " ";
      out += Describe({c}) + ":" + WriteOriginName(c.origin);
    }
    return out;
  }

  void Advance(int64_t seconds) { now_ += seconds * 10'000'000; }

  ::partkv::testing::TempDir dir_;
  std::atomic<int64_t> now_{DateTime::FromUnixMicros(1'900'000'000'000'000).ticks};
  std::optional<Store> store_;
  std::optional<Table> table_;
};

TEST_F(ChangesTest, AllModeRecordsEveryKindOfChangeInOrder) {
  ASSERT_OK(table_->Insert(Make("p", "a", 1)));
  auto replaced = table_->Replace(Make("p", "a", 2), IfMatch::Any());
  ASSERT_OK(replaced);
  Entity patch("p", "a");
  patch.Set("m", Value::String("x"));
  ASSERT_OK(table_->Merge(patch, IfMatch::Any()));
  ASSERT_OK(table_->InsertOrReplace(Make("p", "b", 3)));  // absent: an insert
  ASSERT_OK(table_->InsertOrReplace(Make("p", "b", 4)));  // present: a replace
  ASSERT_OK(table_->InsertOrMerge(Make("p", "c", 5)));    // absent: an insert
  ASSERT_OK(table_->InsertOrMerge(Make("p", "c", 6)));    // present: a merge
  ASSERT_OK(table_->Delete("p", "b", IfMatch::Any()));
  // Failed writes record nothing.
  EXPECT_THAT(table_->Insert(Make("p", "a", 9)), StatusIs(Status::Code::kAlreadyExists));
  EXPECT_THAT(table_->Delete("p", "zz", IfMatch::Any()), StatusIs(Status::Code::kNotFound));

  std::vector<Change> all = ReadAll(ChangeFeedMode::kAll);
  EXPECT_EQ(Describe(all),
            "insert:p/a=1 replace:p/a=2 merge:p/a=2 insert:p/b=3 replace:p/b=4 insert:p/c=5 "
            "merge:p/c=6 delete:p/b");
  for (size_t i = 1; i < all.size(); ++i) EXPECT_GT(all[i].seq, all[i - 1].seq);
  // The entity after the change, with its system properties; a delete names the version removed.
  EXPECT_EQ(all[1].etag, replaced->etag);
  EXPECT_EQ(all[1].entity.etag(), replaced->etag);
  EXPECT_EQ(all[1].entity.timestamp(), replaced->timestamp);
  EXPECT_EQ(all[1].time, replaced->timestamp);
  ASSERT_NE(all[2].entity.Get("m"), nullptr);
  EXPECT_EQ(all[2].entity.Get("m")->as_string(), "x");
  EXPECT_EQ(all[7].etag, all[4].etag);
  EXPECT_EQ(all[7].entity.property_count(), 0u);
}

TEST_F(ChangesTest, LatestModeGivesEachLiveEntityOnceAtItsNewestVersion) {
  ASSERT_OK(table_->Insert(Make("p", "a", 1)));
  ASSERT_OK(table_->Insert(Make("p", "b", 1)));
  ASSERT_OK(table_->Insert(Make("p", "c", 1)));
  ASSERT_OK(table_->InsertOrReplace(Make("p", "a", 2)));
  ASSERT_OK(table_->Delete("p", "b", IfMatch::Any()));
  ASSERT_OK(table_->InsertOrReplace(Make("p", "a", 3)));
  // b is gone (Cosmos DB's latest mode shows no deletes); a appears once, at its last change.
  EXPECT_EQ(Describe(ReadAll(ChangeFeedMode::kLatest)), "insert:p/c=1 replace:p/a=3");
  EXPECT_EQ(ReadAll(ChangeFeedMode::kAll).size(), 6u);
}

TEST_F(ChangesTest, BatchChangesAreContiguousAndInBatchOrder) {
  ASSERT_OK(table_->Insert(Make("p", "z", 0)));
  Batch batch;
  batch.InsertOrReplace(Make("p", "z", 1));
  batch.Insert(Make("p", "a", 2));
  batch.Delete("p", "m", IfMatch::Any());
  Batch first;
  first.Insert(Make("p", "m", 3));
  ASSERT_OK(table_->Submit(first));
  auto failed = Batch();
  failed.Insert(Make("p", "q", 4));
  failed.Insert(Make("p", "m", 5));  // exists: the batch fails whole, recording nothing
  EXPECT_THAT(table_->Submit(failed), StatusIs(Status::Code::kAlreadyExists));
  ASSERT_OK(table_->Submit(batch));
  std::vector<Change> all = ReadAll(ChangeFeedMode::kAll);
  EXPECT_EQ(Describe(all), "insert:p/z=0 insert:p/m=3 replace:p/z=1 insert:p/a=2 delete:p/m");
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[3].seq, all[2].seq + 1);
  EXPECT_EQ(all[4].seq, all[3].seq + 1);
}

TEST_F(ChangesTest, BulkWritesAreRecorded) {
  ASSERT_OK(table_->Insert(Make("p", "b", 0)));
  BulkWriteOptions options;
  options.mode = OpType::kInsertOrReplace;
  auto writer = BulkWriter::Create(*table_, options);
  ASSERT_OK(writer);
  ASSERT_OK(writer->Add(Make("p", "a", 1)));
  ASSERT_OK(writer->Add(Make("p", "b", 2)));
  ASSERT_OK(writer->Add(Make("q", "c", 3)));
  ASSERT_OK(writer->Finish());
  std::vector<Change> all = ReadAll(ChangeFeedMode::kAll);
  std::multiset<std::string> seen;
  for (size_t i = 1; i < all.size(); ++i) seen.insert(Describe({all[i]}));
  EXPECT_EQ(seen, (std::multiset<std::string>{"insert:p/a=1", "replace:p/b=2", "insert:q/c=3"}));
}

TEST_F(ChangesTest, EachChangeRecordsTheOriginOfItsWrite) {
  const WriteOptions from_sync{.origin = WriteOrigin::kSync};
  ASSERT_OK(table_->Insert(Make("p", "a", 1), from_sync));
  ASSERT_OK(table_->Insert(Make("p", "b", 1)));
  Batch sync_batch;
  sync_batch.Insert(Make("p", "c", 1));
  sync_batch.InsertOrReplace(Make("p", "b", 2));  // supersedes the application's b=1
  ASSERT_OK(table_->Submit(sync_batch, from_sync));
  Batch app_batch;
  app_batch.Insert(Make("p", "d", 1));
  app_batch.Delete("p", "c", IfMatch::Any());  // supersedes the sync's c=1
  ASSERT_OK(table_->Submit(app_batch));
  ASSERT_OK(table_->Delete("p", "d", IfMatch::Any(), from_sync));  // supersedes the app's d=1
  const std::string before =
      "insert:p/a=1:sync insert:p/b=1:application insert:p/c=1:sync replace:p/b=2:sync "
      "insert:p/d=1:application delete:p/c:application delete:p/d:sync";
  EXPECT_EQ(DescribeOrigins(ReadAll(ChangeFeedMode::kAll)), before);
  EXPECT_EQ(DescribeOrigins(ReadAll(ChangeFeedMode::kLatest)),
            "insert:p/a=1:sync replace:p/b=2:sync");

  // The application replaces the sync's a=1: the sync's entry, rewritten with the value it
  // referred to (a=1, no longer the row's), still says sync; the replace says application.
  ASSERT_OK(table_->Replace(Make("p", "a", 2), IfMatch::Any()));
  const std::string after = before + " replace:p/a=2:application";
  EXPECT_EQ(DescribeOrigins(ReadAll(ChangeFeedMode::kAll)), after);
  EXPECT_EQ(DescribeOrigins(ReadAll(ChangeFeedMode::kLatest)),
            "replace:p/b=2:sync replace:p/a=2:application");
  // Across a reopen too.
  Open();
  OpenItems();
  std::string token;
  EXPECT_EQ(DescribeOrigins(ReadAll(ChangeFeedMode::kAll, &token)), after);

  // An expiry is the application's, also when a sync's write over the expired entity records it
  // (and supersedes the application's replace of a, which keeps its origin), or a sweep does
  // (superseding the sync's replace of b, which keeps its own).
  ASSERT_OK(store_->SetTableOptions("Items", TableSettings{std::nullopt, 10}));
  Advance(11);
  ASSERT_OK(table_->Insert(Make("p", "a", 3), from_sync));
  auto swept = table_->Sweep();
  ASSERT_OK(swept);
  EXPECT_EQ(swept->expiries_recorded, 1u);
  EXPECT_EQ(DescribeOrigins(ReadAll(ChangeFeedMode::kAll, &token)),
            "expire:p/a:application insert:p/a=3:sync expire:p/b:application");
  EXPECT_EQ(DescribeOrigins(ReadAll(ChangeFeedMode::kAll)),
            after + " expire:p/a:application insert:p/a=3:sync expire:p/b:application");
}

TEST_F(ChangesTest, PagesAndTokensResumeExactlyAndSurviveReopen) {
  for (int i = 0; i < 25; ++i) ASSERT_OK(table_->Insert(Make("p", "r" + std::to_string(i), i)));
  auto page = ReadPage(ChangeFeedMode::kAll, 10);
  ASSERT_OK(page);
  ASSERT_EQ(page->changes.size(), 10u);
  EXPECT_FALSE(page->caught_up);
  std::string token = page->continuation;
  const uint64_t last_seq = page->changes.back().seq;

  Open();  // the token and the numbering outlive the process's handles
  OpenItems();
  std::vector<Change> rest = ReadAll(ChangeFeedMode::kAll, &token, 7);
  ASSERT_EQ(rest.size(), 15u);
  EXPECT_EQ(rest.front().seq, last_seq + 1);
  EXPECT_EQ(rest.front().entity.row_key(), "r10");
  // Numbers go on after the reopen: none is handed out again.
  ASSERT_OK(table_->Insert(Make("p", "after", 0)));
  std::vector<Change> more = ReadAll(ChangeFeedMode::kAll, &token);
  ASSERT_EQ(more.size(), 1u);
  EXPECT_GT(more[0].seq, rest.back().seq);
  // Caught up: a read from the last token is empty and keeps its place.
  EXPECT_TRUE(ReadAll(ChangeFeedMode::kAll, &token).empty());
}

// A page that is not the last leaves its read for the next page (the store's resume cache);
// whatever is done with the token in between, each page is what a fresh read from it would give.
TEST_F(ChangesTest, PagesFromAKeptReadAreThoseOfAFreshRead) {
  for (int i = 0; i < 40; ++i) {
    ASSERT_OK(table_->Insert(Make("p" + std::to_string(i % 3), "r" + std::to_string(i), i)));
  }
  // Supersedes the first version of r0.
  ASSERT_OK(table_->Replace(Make("p0", "r0", 100), IfMatch::Any()));
  auto first = ReadPage(ChangeFeedMode::kAll, 10);
  ASSERT_OK(first);
  ASSERT_EQ(first->changes.size(), 10u);
  const std::string token = first->continuation;

  // Both modes from one token, each page twice: the same changes every time.
  auto a1 = ReadPage(ChangeFeedMode::kAll, 10, token);
  auto l1 = ReadPage(ChangeFeedMode::kLatest, 10, token);
  auto a2 = ReadPage(ChangeFeedMode::kAll, 10, token);
  auto l2 = ReadPage(ChangeFeedMode::kLatest, 10, token);
  ASSERT_OK(a1);
  ASSERT_OK(l1);
  ASSERT_OK(a2);
  ASSERT_OK(l2);
  EXPECT_EQ(Describe(a1->changes), Describe(a2->changes));
  EXPECT_EQ(Describe(l1->changes), Describe(l2->changes));
  EXPECT_EQ(a1->changes.front().entity.row_key(), "r10");
  EXPECT_EQ(Describe(a1->changes), Describe(l1->changes));  // r10..r19 are all current

  // A write between pages: the rest of the feed, up to the new change, before caught_up.
  std::string rest_token = a1->continuation;
  ASSERT_OK(table_->Insert(Make("p9", "late", 7)));
  std::vector<Change> rest = ReadAll(ChangeFeedMode::kAll, &rest_token, 10);
  ASSERT_EQ(rest.size(), 22u);  // r20..r39, the replace of r0, the late insert
  EXPECT_EQ(rest.front().entity.row_key(), "r20");
  EXPECT_EQ(Describe({rest.end() - 2, rest.end()}), "replace:p0/r0=100 insert:p9/late=7");
  // The first version of r0, superseded after it was recorded, still reads as written.
  EXPECT_EQ(Describe({first->changes.front()}), "insert:p0/r0=0");
}

// A page read in `all` mode reads the first entries of the next page ahead; the next page may ask
// for fewer than were read ahead, or another mode, or come after a write: every sequence of page
// sizes gives the feed a single page gives.
TEST_F(ChangesTest, PagesOfAnySizeAfterAReadAheadGiveTheWholeFeed) {
  for (int i = 0; i < 90; ++i) {
    ASSERT_OK(table_->Insert(Make("p" + std::to_string(i % 4), "r" + std::to_string(i), i)));
    if (i % 7 == 3) {
      ASSERT_OK(
          table_->Delete("p" + std::to_string(i % 4), "r" + std::to_string(i), IfMatch::Any()));
    }
    if (i % 5 == 1 && i % 7 != 3) {
      ASSERT_OK(table_->Replace(Make("p" + std::to_string(i % 4), "r" + std::to_string(i), -i),
                                IfMatch::Any()));
    }
  }
  const std::string whole = Describe(ReadAll(ChangeFeedMode::kAll));
  ASSERT_FALSE(whole.empty());
  for (const std::vector<uint32_t>& sizes :
       {std::vector<uint32_t>{10, 3, 1, 7, 20, 2, 1000}, std::vector<uint32_t>{40, 9, 40, 4},
        std::vector<uint32_t>{2, 2, 64, 1, 1, 5}, std::vector<uint32_t>{10, 5, 6, 3}}) {
    std::vector<Change> got;
    ChangesQuery q;
    q.mode = ChangeFeedMode::kAll;
    for (size_t k = 0;; ++k) {
      q.page_size = sizes[k % sizes.size()];
      auto page = table_->ReadChanges(q);
      ASSERT_OK(page);
      ASSERT_LE(page->changes.size(), q.page_size);
      for (auto& c : page->changes) got.push_back(std::move(c));
      q.continuation = page->continuation;
      if (page->caught_up) break;
      ASSERT_LT(k, 1000u);
    }
    EXPECT_EQ(Describe(got), whole) << "page sizes " << sizes[0] << ", " << sizes[1] << "...";
  }
  // A feed of inserts only: a page of 10 reads 5 ahead, exactly the next page of 5, whose token
  // must still say where it ends.
  TableOptions options;
  options.change_feed.enabled = true;
  ASSERT_OK(store_->CreateTable("Inserts", options));
  auto inserts = store_->OpenTable("Inserts");
  ASSERT_OK(inserts);
  for (int i = 0; i < 33; ++i) ASSERT_OK(inserts->Insert(Make("p", "r" + std::to_string(i), i)));
  ASSERT_OK(store_->CreateTable("Other", TableOptions{}));
  auto other = store_->OpenTable("Other");
  ASSERT_OK(other);
  {
    std::vector<Change> got;
    ChangesQuery q;
    q.mode = ChangeFeedMode::kAll;
    for (size_t k = 0;; ++k) {
      q.page_size = k % 2 == 0 ? 10 : 5;
      auto page = inserts->ReadChanges(q);
      ASSERT_OK(page);
      for (auto& c : page->changes) got.push_back(std::move(c));
      q.continuation = page->continuation;
      if (page->caught_up) break;
      ASSERT_LT(k, 100u);
      // A write elsewhere after each page of 5: the next page is read afresh from the token.
      if (k % 2 == 1) ASSERT_OK(other->Insert(Make("elsewhere", std::to_string(k), 0)));
    }
    ASSERT_EQ(got.size(), 33u);
    for (int i = 0; i < 33; ++i) EXPECT_EQ(got[i].entity.row_key(), "r" + std::to_string(i));
  }
  // Half a feed read, a write, then the rest: the write comes last and nothing is lost.
  auto half = ReadPage(ChangeFeedMode::kAll, 50);
  ASSERT_OK(half);
  ASSERT_FALSE(half->caught_up);
  std::vector<Change> got = std::move(half->changes);
  ASSERT_OK(table_->Insert(Make("p0", "last", 1)));
  std::string token = half->continuation;
  for (auto& c : ReadAll(ChangeFeedMode::kAll, &token, 50)) got.push_back(std::move(c));
  EXPECT_EQ(Describe(got), whole + " insert:p0/last=1");
}

TEST_F(ChangesTest, StartNowSkipsThePastAndBadTokensAreRefused) {
  ASSERT_OK(table_->Insert(Make("p", "old", 0)));
  ChangesQuery q;
  q.start = ChangeFeedStart::kNow;
  auto now = table_->ReadChanges(q);
  ASSERT_OK(now);
  EXPECT_TRUE(now->changes.empty());
  EXPECT_TRUE(now->caught_up);
  ASSERT_OK(table_->Insert(Make("p", "new", 1)));
  std::string token = now->continuation;
  EXPECT_EQ(Describe(ReadAll(ChangeFeedMode::kAll, &token)), "insert:p/new=1");

  ChangesQuery bad;
  bad.continuation = "not-a-token";
  EXPECT_THAT(table_->ReadChanges(bad), StatusIs(Status::Code::kInvalidArgument));
  bad.continuation = token;
  bad.continuation[bad.continuation.size() / 2] ^= 1;
  EXPECT_THAT(table_->ReadChanges(bad), StatusIs(Status::Code::kInvalidArgument));
  ChangesQuery big;
  big.page_size = 1001;
  EXPECT_THAT(table_->ReadChanges(big), StatusIs(Status::Code::kInvalidArgument));
  // A token of another table's feed is refused.
  TableOptions options;
  options.change_feed.enabled = true;
  ASSERT_OK(store_->CreateTable("Other", options));
  auto other = store_->OpenTable("Other");
  ASSERT_OK(other);
  ChangesQuery foreign;
  foreign.continuation = token;
  EXPECT_THAT(other->ReadChanges(foreign), StatusIs(Status::Code::kInvalidArgument));
}

TEST_F(ChangesTest, RetentionByAgeTrimsAndOldPositionsAreTrimmed) {
  ASSERT_OK(store_->SetTableOptions(
      "Items", TableSettings{ChangeFeedOptions{true, std::chrono::seconds(3600), 0}, {}}));
  ASSERT_OK(table_->Insert(Make("p", "a", 1)));
  ASSERT_OK(table_->Insert(Make("p", "b", 2)));
  auto start = table_->FeedState();
  ASSERT_OK(start);
  const std::string old_token = start->first_token;
  Advance(1800);
  ASSERT_OK(table_->Insert(Make("p", "c", 3)));
  auto none = table_->Sweep();
  ASSERT_OK(none);
  EXPECT_EQ(none->feed_entries_trimmed, 0u);
  Advance(1801);  // a and b are now older than an hour; c is not
  auto swept = table_->Sweep();
  ASSERT_OK(swept);
  EXPECT_EQ(swept->feed_entries_trimmed, 2u);

  ChangesQuery q;
  q.continuation = old_token;
  auto trimmed = table_->ReadChanges(q);
  EXPECT_THAT(trimmed, StatusIs(Status::Code::kTrimmed));
  auto state = table_->FeedState();
  ASSERT_OK(state);
  EXPECT_EQ(state->first_seq, start->first_seq + 2);
  EXPECT_NE(trimmed.status().message().find("oldest position kept is " +
                                            std::to_string(state->first_seq)),
            std::string_view::npos)
      << trimmed.status().ToString();
  std::string token = state->first_token;
  EXPECT_EQ(Describe(ReadAll(ChangeFeedMode::kAll, &token)), "insert:p/c=3");
  EXPECT_EQ(Describe(ReadAll(ChangeFeedMode::kAll)), "insert:p/c=3");  // from the start

  // The trim is durable, and numbers are not reused after it.
  Open();
  OpenItems();
  q.continuation = old_token;
  EXPECT_THAT(table_->ReadChanges(q), StatusIs(Status::Code::kTrimmed));
  ASSERT_OK(table_->Insert(Make("p", "d", 4)));
  std::vector<Change> all = ReadAll(ChangeFeedMode::kAll);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_GT(all[1].seq, all[0].seq);
}

TEST_F(ChangesTest, RetentionBySizeKeepsTheNewestEntriesWithinTheLimit) {
  ASSERT_OK(store_->SetTableOptions(
      "Items", TableSettings{ChangeFeedOptions{true, std::chrono::seconds(0), 64 << 10}, {}}));
  Entity big("p", "");
  std::mt19937_64 random(7);
  std::string blob(2000, '\0');
  // Each row written twice: the second write replaces the first version, whose entry then holds
  // it (the entry of a row's current version refers to the row instead).
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < 300; ++i) {
      for (char& c : blob) c = static_cast<char>(random());  // incompressible
      big.Set("blob", Value::Binary(blob));
      big.set_row_key("r" + std::to_string(1000 + i));
      ASSERT_OK(table_->InsertOrReplace(big));
    }
  }
  ASSERT_OK(store_->Flush());
  auto before = table_->FeedState();
  ASSERT_OK(before);
  EXPECT_GT(before->bytes, 64u << 10);
  auto swept = table_->Sweep();
  ASSERT_OK(swept);
  EXPECT_GT(swept->feed_entries_trimmed, 0u);
  std::vector<Change> kept = ReadAll(ChangeFeedMode::kAll);
  ASSERT_FALSE(kept.empty());
  EXPECT_LT(kept.size(), 600u);
  EXPECT_EQ(kept.back().entity.row_key(), "r1299");  // the newest are the ones kept
  EXPECT_EQ(kept.back().op, ChangeOp::kReplace);
  ASSERT_NE(kept.back().entity.Get("blob"), nullptr);
  EXPECT_EQ(kept.back().entity.Get("blob")->as_binary(), blob);  // read from the row
  EXPECT_EQ(kept.size(), before->next_seq - before->first_seq - swept->feed_entries_trimmed);
}

TEST_F(ChangesTest, FeedIsOffByDefaultAndTurnsOnAndOffPerTable) {
  ASSERT_OK(store_->CreateTable("Plain"));
  std::optional<Table> plain;
  {
    auto opened = store_->OpenTable("Plain");
    ASSERT_OK(opened);
    plain.emplace(std::move(*opened));
  }
  ASSERT_OK(plain->Insert(Make("p", "a", 1)));
  EXPECT_THAT(plain->ReadChanges({}), StatusIs(Status::Code::kInvalidArgument));
  EXPECT_THAT(plain->FeedState(), StatusIs(Status::Code::kInvalidArgument));
  auto listed = store_->ListTables();
  ASSERT_OK(listed);
  for (const TableInfo& t : *listed) EXPECT_EQ(t.change_feed.enabled, t.name == "Items");

  // On later: it records from then on.
  ASSERT_OK(store_->SetTableOptions("Plain", TableSettings{ChangeFeedOptions{true}, {}}));
  ASSERT_OK(plain->Insert(Make("p", "b", 2)));
  std::string token;
  {
    auto p = plain->ReadChanges(
        ChangesQuery{"", ChangeFeedStart::kBeginning, ChangeFeedMode::kAll, 1000});
    ASSERT_OK(p);
    EXPECT_EQ(Describe(p->changes), "insert:p/b=2");
    token = p->continuation;
  }
  // Off: nothing recorded, nothing readable; on again: the old position is Trimmed, since the
  // changes made meanwhile are not in the feed.
  ASSERT_OK(store_->SetTableOptions("Plain", TableSettings{ChangeFeedOptions{false}, {}}));
  ASSERT_OK(plain->Insert(Make("p", "c", 3)));
  EXPECT_THAT(plain->ReadChanges({}), StatusIs(Status::Code::kInvalidArgument));
  ASSERT_OK(store_->SetTableOptions("Plain", TableSettings{ChangeFeedOptions{true}, {}}));
  ChangesQuery q;
  q.continuation = token;
  EXPECT_THAT(plain->ReadChanges(q), StatusIs(Status::Code::kTrimmed));
  ASSERT_OK(plain->Insert(Make("p", "d", 4)));
  auto fresh =
      plain->ReadChanges(ChangesQuery{"", ChangeFeedStart::kBeginning, ChangeFeedMode::kAll, 1000});
  ASSERT_OK(fresh);
  EXPECT_EQ(Describe(fresh->changes), "insert:p/d=4");
  // The setting is durable.
  plain.reset();
  Open();
  auto info = store_->OpenTable("Plain");
  ASSERT_OK(info);
  EXPECT_TRUE(info->info().change_feed.enabled);
}

TEST_F(ChangesTest, DroppedTableTakesItsFeedAlong) {
  ASSERT_OK(table_->Insert(Make("p", "a", 1)));
  auto state = table_->FeedState();
  ASSERT_OK(state);
  ASSERT_OK(store_->DropTable("Items"));
  EXPECT_THAT(table_->ReadChanges({}), StatusIs(Status::Code::kNotFound));
  TableOptions options;
  options.change_feed.enabled = true;
  ASSERT_OK(store_->CreateTable("Items", options));
  OpenItems();
  EXPECT_TRUE(ReadAll(ChangeFeedMode::kAll).empty());
  ChangesQuery q;
  q.continuation = state->first_token;  // the dropped table's: not this one's
  EXPECT_THAT(table_->ReadChanges(q), StatusIs(Status::Code::kInvalidArgument));
  // The dropped feed's entries are gone from disk once flushed and compacted.
  ASSERT_OK(store_->Flush());
  engine::StoreState& st = FrontAccess::Of(*store_);
  for (auto* cf : st.table_column_families()) {
    ASSERT_TRUE(st.db()->CompactRange(rocksdb::CompactRangeOptions(), cf, nullptr, nullptr).ok());
  }
  size_t rows = 0;
  for (auto* cf : st.table_column_families()) {
    std::unique_ptr<rocksdb::Iterator> it(st.db()->NewIterator(rocksdb::ReadOptions(), cf));
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++rows;
  }
  EXPECT_EQ(rows, 0u);
}

TEST_F(ChangesTest, AwaitChangesWakesOnACommitAndTimesOut) {
  ChangesQuery q;
  q.start = ChangeFeedStart::kNow;
  auto now = table_->ReadChanges(q);
  ASSERT_OK(now);
  auto idle = table_->AwaitChanges(now->continuation, std::chrono::milliseconds(20));
  ASSERT_OK(idle);
  EXPECT_FALSE(*idle);
  std::thread writer([this] { ASSERT_OK(table_->Insert(Make("p", "w", 1))); });
  auto woke = table_->AwaitChanges(now->continuation, std::chrono::seconds(60));
  writer.join();
  ASSERT_OK(woke);
  EXPECT_TRUE(*woke);
  std::string token = now->continuation;
  EXPECT_EQ(Describe(ReadAll(ChangeFeedMode::kAll, &token)), "insert:p/w=1");
}

TEST_F(ChangesTest, AReaderBesideWritersMissesNothingAndSeesEachKeyInOrder) {
  constexpr int kWriters = 4, kWrites = 400;
  std::atomic<int> done{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([this, w, &done] {
      for (int i = 0; i < kWrites; ++i) {
        // Each writer updates its own few keys again and again, and a batch now and then.
        const std::string pk = "w" + std::to_string(w);
        if (i % 10 == 9) {
          Batch b;
          b.InsertOrReplace(Make(pk, "b1", i));
          b.InsertOrReplace(Make(pk, "b2", i));
          ASSERT_OK(table_->Submit(b));
        } else {
          ASSERT_OK(table_->InsertOrReplace(Make(pk, "k" + std::to_string(i % 5), i)));
        }
      }
      ++done;
    });
  }
  std::vector<Change> seen;
  std::string token;
  {
    auto first = table_->ReadChanges(
        ChangesQuery{"", ChangeFeedStart::kBeginning, ChangeFeedMode::kAll, 50});
    ASSERT_OK(first);
    for (auto& c : first->changes) seen.push_back(std::move(c));
    token = first->continuation;
  }
  while (done.load() < kWriters) {
    for (auto& c : ReadAll(ChangeFeedMode::kAll, &token, 50)) seen.push_back(std::move(c));
  }
  for (auto& t : writers) t.join();
  for (auto& c : ReadAll(ChangeFeedMode::kAll, &token, 50)) seen.push_back(std::move(c));

  // Exactly the committed writes, each once, numbers increasing; per key in write order.
  const size_t batches = kWrites / 10;
  EXPECT_EQ(seen.size(), static_cast<size_t>(kWriters) * (kWrites - batches + 2 * batches));
  std::map<std::string, int> last;
  for (size_t i = 0; i < seen.size(); ++i) {
    if (i > 0) {
      EXPECT_GT(seen[i].seq, seen[i - 1].seq);
    }
    const std::string key = seen[i].entity.partition_key() + "/" + seen[i].entity.row_key();
    const int n = seen[i].entity.Get("n")->as_int32();
    auto it = last.find(key);
    if (it != last.end()) {
      EXPECT_GT(n, it->second) << key;
    }
    last[key] = n;
  }
  std::vector<uint64_t> seqs, again;
  for (const Change& c : seen) seqs.push_back(c.seq);
  for (const Change& c : ReadAll(ChangeFeedMode::kAll)) again.push_back(c.seq);
  EXPECT_EQ(seqs, again) << "a second read from the start differs";
}

}  // namespace
}  // namespace partkv
