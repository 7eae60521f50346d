// Time to live (partkv/changes.h, docs/changes.md "Time to live"), with the store's clock
// injected: an expired entity is invisible at once to every read path (Get, queries of one
// partition and of the whole table, filters, sharded reads, batch conditions, bulk writes, census
// counts, copies), the per-entity override follows Cosmos DB's rule, the space is reclaimed by
// compaction, and a table with a change feed records each expiry once.

#include <memory>
#include <string>
#include <vector>

#include "api/front/front_access.h"
#include "engine/local/store_state.h"
#include "gtest/gtest.h"
#include "partkv/copy.h"
#include "partkv/partkv.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

constexpr int64_t kSecond = 10'000'000;

class TtlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions options;
    options.maintenance_interval = std::chrono::milliseconds(0);
    auto s = Store::Open(dir_.Sub("store"), options);
    ASSERT_OK(s);
    store_.emplace(std::move(*s));
    FrontAccess::Of(*store_).SetClockForTesting([this] { return now_.load(); });
  }

  Table Create(const std::string& name, int64_t ttl, bool feed = false,
               std::optional<KeyStrategy> pk_scheme = std::nullopt) {
    TableOptions options;
    options.ttl_seconds = ttl;
    options.change_feed.enabled = feed;
    options.partition_key_scheme = std::move(pk_scheme);
    EXPECT_OK(store_->CreateTable(name, options));
    auto t = store_->OpenTable(name);
    EXPECT_OK(t);
    return std::move(*t);
  }

  static Entity Make(const std::string& pk, const std::string& rk,
                     std::optional<int64_t> ttl = std::nullopt) {
    Entity e(pk, rk);
    e.Set("n", Value::Int32(1));
    if (ttl) e.Set("ttl", Value::Int64(*ttl));
    return e;
  }

  static std::vector<std::string> Keys(const Table& t, Query q = {}) {
    std::vector<std::string> out;
    for (int guard = 0; guard < 1000; ++guard) {
      auto page = t.QueryEntities(q);
      EXPECT_OK(page);
      if (!page.ok()) break;
      for (const Entity& e : page->entities) out.push_back(e.partition_key() + "/" + e.row_key());
      if (page->continuation.empty()) break;
      q.continuation = page->continuation;
    }
    return out;
  }

  void Advance(int64_t seconds) { now_ += seconds * kSecond; }

  // Compacts every data column family, so that the compaction filter sees every row.
  void CompactAll() {
    engine::StoreState& st = FrontAccess::Of(*store_);
    ASSERT_OK(store_->Flush());
    for (auto* cf : st.table_column_families()) {
      ASSERT_TRUE(st.db()->CompactRange(rocksdb::CompactRangeOptions(), cf, nullptr, nullptr).ok());
    }
  }
  // Rows stored for table `t` (entities, expired or not, and feed entries), read raw.
  size_t StoredRows(const Table& t) {
    engine::StoreState& st = FrontAccess::Of(*store_);
    const std::string prefix = engine::TablePrefix(t.info().id);
    size_t n = 0;
    for (auto* cf : st.table_column_families()) {
      std::unique_ptr<rocksdb::Iterator> it(st.db()->NewIterator(rocksdb::ReadOptions(), cf));
      for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) ++n;
    }
    return n;
  }

  ::partkv::testing::TempDir dir_;
  std::atomic<int64_t> now_{DateTime::FromUnixMicros(1'900'000'000'000'000).ticks};
  std::optional<Store> store_;
};

TEST_F(TtlTest, ExpiredEntityIsInvisibleToEveryRead) {
  Table t = Create("Items", 60);
  ASSERT_OK(t.Insert(Make("p", "old")));
  ASSERT_OK(t.Insert(Make("q", "old")));
  Advance(30);
  ASSERT_OK(t.Insert(Make("p", "young")));
  ASSERT_OK(t.Get("p", "old"));
  Advance(31);  // "old" rows are over 60 s old: expired; "young" is 31 s old
  EXPECT_THAT(t.Get("p", "old"), StatusIs(Status::Code::kNotFound));
  ASSERT_OK(t.Get("p", "young"));
  EXPECT_EQ(Keys(t), std::vector<std::string>{"p/young"});
  Query one;
  one.partition_key = "p";
  EXPECT_EQ(Keys(t, one), std::vector<std::string>{"p/young"});
  Query filtered;
  filtered.filter = "n eq 1";
  EXPECT_EQ(Keys(t, filtered), std::vector<std::string>{"p/young"});
  Query paged;
  paged.page_size = 1;
  EXPECT_EQ(Keys(t, paged), std::vector<std::string>{"p/young"});
  auto census = t.Census();
  ASSERT_OK(census);
  EXPECT_EQ(census->entities, 1u);
  EXPECT_EQ(census->expired_entities, 2u);
  // A copy reads what a reader sees.
  ASSERT_OK(store_->CreateTable("Copy"));
  auto copy = store_->OpenTable("Copy");
  ASSERT_OK(copy);
  CopyOptions options;
  auto report = CopyTable(t, *copy, options);
  ASSERT_OK(report);
  EXPECT_EQ(Keys(*copy), std::vector<std::string>{"p/young"});
}

TEST_F(TtlTest, ShardedReadsLeaveExpiredShardsOut) {
  auto scheme = KeyStrategy::Parse("hash-suffix(device,id,4)");
  ASSERT_OK(scheme);
  Table t = Create("Sharded", 10, false, *scheme);
  for (int i = 0; i < 8; ++i) {
    Entity e("", "r" + std::to_string(i));
    e.Set("device", Value::String("d" + std::to_string(i % 2)));
    e.Set("id", Value::String("i" + std::to_string(i)));
    if (i % 2 == 0) e.Set("ttl", Value::Int32(-1));
    ASSERT_OK(t.Insert(e));
  }
  Advance(12);
  auto page = t.QueryShards("d0", Query{});
  ASSERT_OK(page);
  EXPECT_EQ(page->entities.size(), 4u);
  auto gone = t.QueryShards("d1", Query{});
  ASSERT_OK(gone);
  EXPECT_TRUE(gone->entities.empty());
}

TEST_F(TtlTest, WritesTreatAnExpiredEntityAsAbsent) {
  Table t = Create("Items", 10);
  ASSERT_OK(t.Insert(Make("p", "a")));
  ASSERT_OK(t.Insert(Make("p", "b")));
  ASSERT_OK(t.Insert(Make("p", "c")));
  Advance(11);
  EXPECT_THAT(t.Replace(Make("p", "a"), IfMatch::Any()), StatusIs(Status::Code::kNotFound));
  EXPECT_THAT(t.Merge(Make("p", "a"), IfMatch::Any()), StatusIs(Status::Code::kNotFound));
  EXPECT_THAT(t.Delete("p", "a", IfMatch::Any()), StatusIs(Status::Code::kNotFound));
  ASSERT_OK(t.Insert(Make("p", "a")));  // the key is free again
  // A merge onto an expired entity starts from nothing: its old properties are gone.
  Entity patch("p", "b");
  patch.Set("m", Value::Int32(2));
  ASSERT_OK(t.InsertOrMerge(patch));
  auto merged = t.Get("p", "b");
  ASSERT_OK(merged);
  EXPECT_EQ(merged->Get("n"), nullptr);
  // Batch conditions too.
  Batch batch;
  batch.Insert(Make("p", "c"));
  batch.Insert(Make("p", "d"));
  ASSERT_OK(t.Submit(batch));
  Batch conditional;
  conditional.Replace(Make("p", "zz"), IfMatch::Any());
  EXPECT_THAT(t.Submit(conditional), StatusIs(Status::Code::kNotFound));
  // Bulk inserts over expired rows succeed.
  Advance(11);
  auto writer = BulkWriter::Create(t, BulkWriteOptions{});
  ASSERT_OK(writer);
  ASSERT_OK(writer->Add(Make("p", "a")));
  ASSERT_OK(writer->Add(Make("p", "c")));
  ASSERT_OK(writer->Finish());
  EXPECT_EQ(Keys(t), (std::vector<std::string>{"p/a", "p/c"}));
}

TEST_F(TtlTest, EntityTtlOverridesTheTableDefaultAsCosmosDbDoes) {
  Table t = Create("Items", 100);
  ASSERT_OK(t.Insert(Make("p", "default")));
  ASSERT_OK(t.Insert(Make("p", "never", -1)));
  ASSERT_OK(t.Insert(Make("p", "short", 5)));
  ASSERT_OK(t.Insert(Make("p", "long", 1000)));
  Entity text = Make("p", "text");
  text.Set("ttl", Value::String("5"));  // not a number type: the default applies
  ASSERT_OK(t.Insert(text));
  Advance(6);
  EXPECT_EQ(Keys(t), (std::vector<std::string>{"p/default", "p/long", "p/never", "p/text"}));
  Advance(100);
  EXPECT_EQ(Keys(t), (std::vector<std::string>{"p/long", "p/never"}));
  Advance(1000);
  EXPECT_EQ(Keys(t), std::vector<std::string>{"p/never"});

  // No default (-1): only entities with a ttl expire. Off (0): nothing expires, ttl ignored.
  Table none = Create("NoDefault", kTtlNoDefault);
  ASSERT_OK(none.Insert(Make("p", "kept")));
  ASSERT_OK(none.Insert(Make("p", "short", 5)));
  Table off = Create("Off", kTtlOff);
  ASSERT_OK(off.Insert(Make("p", "short", 5)));
  Advance(6);
  EXPECT_EQ(Keys(none), std::vector<std::string>{"p/kept"});
  EXPECT_EQ(Keys(off), std::vector<std::string>{"p/short"});
}

TEST_F(TtlTest, ChangingTheTableTtlAppliesToStoredEntitiesAtOnce) {
  Table t = Create("Items", kTtlOff);
  ASSERT_OK(t.Insert(Make("p", "a")));
  Advance(100);
  ASSERT_OK(t.Get("p", "a"));
  ASSERT_OK(store_->SetTableOptions("Items", TableSettings{std::nullopt, 50}));
  EXPECT_THAT(t.Get("p", "a"), StatusIs(Status::Code::kNotFound));
  ASSERT_OK(store_->SetTableOptions("Items", TableSettings{std::nullopt, 500}));
  ASSERT_OK(t.Get("p", "a"));
  EXPECT_THAT(store_->SetTableOptions("Items", TableSettings{std::nullopt, -2}),
              StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(t.info().ttl_seconds, 500);
}

TEST_F(TtlTest, CompactionReclaimsExpiredEntities) {
  Table t = Create("Items", 10);
  for (int i = 0; i < 100; ++i) {
    ASSERT_OK(t.Insert(
        Make("p", "r" + std::to_string(i), i < 50 ? std::nullopt : std::optional<int64_t>(-1))));
  }
  CompactAll();
  EXPECT_EQ(StoredRows(t), 100u);  // nothing expired yet: nothing reclaimed
  Advance(11);
  CompactAll();
  EXPECT_EQ(StoredRows(t), 50u);
  auto census = t.Census();
  ASSERT_OK(census);
  EXPECT_EQ(census->entities, 50u);
  EXPECT_EQ(census->expired_entities, 0u);
}

TEST_F(TtlTest, FeedRecordsEachExpiryOnce) {
  Table t = Create("Items", 10, /*feed=*/true);
  ASSERT_OK(t.Insert(Make("p", "a")));
  ASSERT_OK(t.Insert(Make("p", "b")));
  ASSERT_OK(t.Insert(Make("p", "c", -1)));
  Advance(11);
  // An insert over an expired entity records the expiry before itself.
  ASSERT_OK(t.Insert(Make("p", "b")));
  // A compaction leaves a feed table's expired entities for the sweep, which records them.
  CompactAll();
  auto swept = t.Sweep();
  ASSERT_OK(swept);
  EXPECT_EQ(swept->expiries_recorded, 1u);  // a; b was recorded by the insert
  auto again = t.Sweep();
  ASSERT_OK(again);
  EXPECT_EQ(again->expiries_recorded, 0u);
  std::vector<std::string> ops;
  ChangesQuery q;
  q.mode = ChangeFeedMode::kAll;
  auto page = t.ReadChanges(q);
  ASSERT_OK(page);
  for (const Change& c : page->changes) {
    ops.push_back(std::string(ChangeOpName(c.op)) + ":" + c.entity.row_key());
  }
  EXPECT_EQ(ops, (std::vector<std::string>{"insert:a", "insert:b", "insert:c", "expire:b",
                                           "insert:b", "expire:a"}));
  // The expiry names the version that expired.
  EXPECT_EQ(page->changes[5].etag, page->changes[0].etag);
  // And the space goes at the next compaction: a (swept), the old b; c, new b, 6 entries and the
  // version index entries of c's and the new b's entries (which refer to their rows) stay.
  CompactAll();
  EXPECT_EQ(StoredRows(t), 2u + 6u + 2u);
  // The latest mode shows what lives.
  q.mode = ChangeFeedMode::kLatest;
  auto latest = t.ReadChanges(q);
  ASSERT_OK(latest);
  ASSERT_EQ(latest->changes.size(), 2u);
  EXPECT_EQ(latest->changes[0].entity.row_key(), "c");
  EXPECT_EQ(latest->changes[1].entity.row_key(), "b");
}

}  // namespace
}  // namespace partkv
