// The bulk writer (partkv/bulk_writer.h): rows in any key order written in atomic groups with
// Azure's per-row rules; the first bad row stops it, with what it left written exactly stated;
// both ways of writing (streaming, and validate_before_writing through the key-sorted stage of
// engine/local/bulk_stage.h).

#include "partkv/bulk_writer.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/front/front_access.h"
#include "engine/local/bulk_stage.h"
#include "engine/local/table_handle.h"
#include "partkv/json.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/store_fixture.h"

namespace partkv {
namespace {

using ::partkv::testing::IsOk;
using ::partkv::testing::StatusIs;
using ::testing::Not;

// "%06d": row keys whose byte order is their numeric order.
std::string RowKey(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%06d", i);
  return buf;
}

class BulkWriterTest : public testing::StoreFixture, public ::testing::WithParamInterface<bool> {
 protected:
  // The parameter: validate_before_writing.
  BulkWriteOptions Options(size_t group_rows = 16384) const {
    BulkWriteOptions o;
    o.max_group_rows = group_rows;
    o.validate_before_writing = GetParam();
    return o;
  }
  BulkWriter Writer(const BulkWriteOptions& o) {
    auto w = BulkWriter::Create(*table_, o);
    EXPECT_OK(w);
    return std::move(*w);
  }
  // Every entity of the table as "pk/rk=n;" in key order.
  std::string Contents() {
    std::string out;
    Query q;
    for (;;) {
      auto page = table_->QueryEntities(q);
      EXPECT_OK(page);
      if (!page.ok()) return out;
      for (const Entity& e : page->entities) {
        out += e.partition_key() + "/" + e.row_key() + "=" +
               std::to_string(e.Get("n") ? e.Get("n")->as_int32() : -1) + ";";
      }
      if (!page->has_more()) return out;
      q.continuation = page->continuation;
    }
  }
  size_t Count() {
    std::string contents = Contents();
    return static_cast<size_t>(std::count(contents.begin(), contents.end(), ';'));
  }
  // Row i of a round robin over `keys` PartitionKeys: "d<i % keys>" / Rk(i).
  static Entity Interleaved(int i, int keys) {
    return Make("d" + std::to_string(i % keys), Rk(i), i);
  }
};

INSTANTIATE_TEST_SUITE_P(Streaming, BulkWriterTest, ::testing::Values(false));
INSTANTIATE_TEST_SUITE_P(ValidateBeforeWriting, BulkWriterTest, ::testing::Values(true));

TEST_P(BulkWriterTest, InterleavedPartitionKeysAreAllWrittenInGroupsOfManyKeys) {
  std::vector<uint64_t> groups;  // rows per group
  std::set<uint64_t> positions;
  BulkWriteOptions o = Options(/*group_rows=*/16);
  o.on_group_written = [&](const BulkWrittenGroup& g, const BulkWriteReport&) {
    groups.push_back(g.size());
    for (size_t i = 0; i < g.size(); ++i) EXPECT_TRUE(positions.insert(g.row(i)).second);
  };
  BulkWriter w = Writer(o);
  std::string expected;
  std::map<std::string, std::string> sorted;
  for (int i = 0; i < 100; ++i) {
    ASSERT_OK(w.Add(Interleaved(i, 5)));
    sorted["d" + std::to_string(i % 5) + "/" + Rk(i)] = std::to_string(i);
  }
  ASSERT_OK(w.Finish()) << w.report().error.ToString();
  for (const auto& [key, n] : sorted) expected += key + "=" + n + ";";
  EXPECT_EQ(Contents(), expected);
  const BulkWriteReport& r = w.report();
  EXPECT_EQ(r.rows_added, 100u);
  EXPECT_EQ(r.rows_written, 100u);
  EXPECT_EQ(r.groups_written, 7u);     // 6 of 16 rows and one of 4
  EXPECT_EQ(r.batches_written, 100u);  // no two consecutive rows share a PartitionKey
  EXPECT_EQ(groups, (std::vector<uint64_t>{16, 16, 16, 16, 16, 16, 4}));
  EXPECT_EQ(positions.size(), 100u);
  EXPECT_OK(r.error);
  EXPECT_FALSE(r.bad_row.has_value());
}

TEST_P(BulkWriterTest, RowsOfOnePartitionKeyFormBatchesOfAtMost100) {
  BulkWriter w = Writer(Options());
  for (int i = 0; i < 250; ++i) ASSERT_OK(w.Add(Make("p", Rk(i), i)));
  ASSERT_OK(w.Add(Make("q", Rk(0), 0)));
  ASSERT_OK(w.Finish());
  EXPECT_EQ(w.report().batches_written, 4u);  // 100, 100, 50 of p; 1 of q
  EXPECT_EQ(w.report().groups_written, 1u);
  EXPECT_EQ(Count(), 251u);
}

TEST_P(BulkWriterTest, EveryRowGetsItsOwnEtagAndTimestamp) {
  std::map<uint64_t, WriteResult> results;
  BulkWriteOptions o = Options(/*group_rows=*/8);
  o.on_group_written = [&](const BulkWrittenGroup& g, const BulkWriteReport&) {
    for (size_t i = 0; i < g.size(); ++i) results[g.row(i)] = g.result(i);
  };
  BulkWriter w = Writer(o);
  for (int i = 0; i < 30; ++i) ASSERT_OK(w.Add(Interleaved(i, 3)));
  ASSERT_OK(w.Finish());
  ASSERT_EQ(results.size(), 30u);
  std::set<std::string> etags;
  for (int i = 0; i < 30; ++i) {
    Entity e = Interleaved(i, 3);
    auto got = table_->Get(e.partition_key(), e.row_key());
    ASSERT_OK(got);
    EXPECT_EQ(got->etag(), results[i].etag) << i;
    EXPECT_EQ(got->timestamp().ticks, results[i].timestamp.ticks) << i;
    etags.insert(got->etag());
  }
  EXPECT_EQ(etags.size(), 30u);
}

TEST_P(BulkWriterTest, AnInsertRepeatingAKeyInsideOneGroupFailsAtTheLaterRow) {
  BulkWriter w = Writer(Options());
  ASSERT_OK(w.Add(Make("a", "1", 0)));
  ASSERT_OK(w.Add(Make("b", "1", 1)));
  ASSERT_OK(w.Add(Make("a", "1", 2)));
  ASSERT_OK(w.Add(Make("c", "1", 3)));
  Status s = w.Finish();
  EXPECT_THAT(s, StatusIs(Status::Code::kAlreadyExists));
  EXPECT_EQ(s.message(),
            "row 2: entity (PartitionKey 'a', RowKey '1') already exists: an earlier row of this "
            "bulk write inserts it");
  EXPECT_EQ(w.report().bad_row, 2u);
  EXPECT_EQ(w.report().rows_written, 2u);
  EXPECT_EQ(w.report().batches_written, 2u);
  EXPECT_EQ(Contents(), "a/1=0;b/1=1;");
  EXPECT_EQ(w.Add(Make("d", "1", 4)).message(), s.message());  // stopped
}

TEST_P(BulkWriterTest, AnInsertRepeatingAKeyOfAnEarlierGroupFailsAtTheLaterRow) {
  BulkWriter w = Writer(Options(/*group_rows=*/2));
  for (auto [pk, n] : {std::pair{"a", 0}, {"b", 1}, {"c", 2}, {"a", 3}, {"d", 4}}) {
    Status s = w.Add(Make(pk, "1", n));
    if (!s.ok()) break;
  }
  Status s = w.Finish();
  ASSERT_THAT(s, StatusIs(Status::Code::kAlreadyExists));
  EXPECT_EQ(w.report().bad_row, 3u);
  EXPECT_EQ(w.report().rows_written, 3u);  // the batch of c (row 2) came before
  EXPECT_EQ(Contents(), "a/1=0;b/1=1;c/1=2;");
  EXPECT_NE(s.message().find("row 3: entity (PartitionKey 'a', RowKey '1') already exists"),
            std::string_view::npos)
      << s.ToString();
}

TEST_P(BulkWriterTest, UpsertsOfOneKeyKeepTheLaterRowInAGroupAndAcrossGroups) {
  BulkWriteOptions o = Options(/*group_rows=*/3);
  o.mode = OpType::kInsertOrReplace;
  BulkWriter w = Writer(o);
  // a/1 twice in the first group, then again in the second.
  for (auto [pk, n] : {std::pair{"a", 0}, {"b", 1}, {"a", 2}, {"c", 3}, {"a", 4}}) {
    ASSERT_OK(w.Add(Make(pk, "1", n)));
  }
  ASSERT_OK(w.Finish()) << w.report().error.ToString();
  EXPECT_EQ(Contents(), "a/1=4;b/1=1;c/1=3;");
  EXPECT_EQ(w.report().rows_written, 5u);
}

TEST_P(BulkWriterTest, InsertOrMergeMergesRowsOfOneKeyInStreamOrder) {
  ASSERT_OK(
      table_->Insert(Entity("p", "r").Set("kept", Value::Int32(1)).Set("n", Value::Int32(0))));
  BulkWriteOptions o = Options(/*group_rows=*/2);
  o.mode = OpType::kInsertOrMerge;
  BulkWriter w = Writer(o);
  ASSERT_OK(w.Add(Entity("p", "r").Set("n", Value::Int32(1)).Set("x", Value::Int32(1))));
  ASSERT_OK(w.Add(Entity("p", "r").Set("n", Value::Int32(2))));
  ASSERT_OK(w.Add(Entity("p", "r").Set("y", Value::Int32(3))));
  ASSERT_OK(w.Add(Entity("p", "new").Set("n", Value::Int32(4))));
  ASSERT_OK(w.Finish()) << w.report().error.ToString();
  EXPECT_EQ(Get("p", "r"), "{kept=1,n=2,x=1,y=3}");
  EXPECT_EQ(Get("p", "new"), "{n=4}");
}

TEST_P(BulkWriterTest, ABadRowStopsTheWriterAndNothingOfItsGroupIsWritten) {
  BulkWriter w = Writer(Options(/*group_rows=*/10));
  Status s;
  int k = 0;
  for (; k < 40; ++k) {
    Entity e = k == 25 ? Make("bad/key", "r", k) : Make("p" + std::to_string(k % 3), Rk(k), k);
    s = w.Add(e);
    if (!s.ok()) break;
  }
  ASSERT_EQ(k, 25);
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(s.message(),
            "row 25: PartitionKey 'bad/key' contains the forbidden character '/' at byte 3 (not "
            "allowed: / \\ # ? and U+0000-U+001F, U+007F-U+009F)");
  const BulkWriteReport& r = w.report();
  EXPECT_EQ(r.bad_row, 25u);
  EXPECT_EQ(r.rows_added, 25u);
  // Streaming: the groups of rows 0-9 and 10-19 are written, 20-24 (the bad row's) are not.
  // Validating first: nothing is.
  EXPECT_EQ(r.rows_written, GetParam() ? 0u : 20u);
  EXPECT_EQ(Count(), GetParam() ? 0u : 20u);
  EXPECT_THAT(table_->Get("p2", Rk(20)), Not(IsOk()));
  EXPECT_EQ(w.Add(Make("q", "r", 1)).message(), s.message());
  EXPECT_EQ(w.Finish().message(), s.message());
  EXPECT_EQ(Count(), GetParam() ? 0u : 20u);
}

TEST_P(BulkWriterTest, AnExistingRowFailsItsBatchAndTheBatchesBeforeItAreWritten) {
  ASSERT_OK(table_->Insert(Make("q", Rk(49), -1)));
  BulkWriter w = Writer(Options());
  for (int i = 0; i < 100; ++i) ASSERT_OK(w.Add(Make("p", Rk(i), i)));
  for (int i = 0; i < 100; ++i) ASSERT_OK(w.Add(Make("q", Rk(i), 100 + i)));
  Status s = w.Finish();
  EXPECT_THAT(s, StatusIs(Status::Code::kAlreadyExists));
  EXPECT_EQ(s.message(), "row 149: entity (PartitionKey 'q', RowKey '000049') already exists");
  EXPECT_EQ(w.report().bad_row, 149u);
  EXPECT_EQ(w.report().rows_written, 100u);
  EXPECT_EQ(w.report().batches_written, 1u);
  EXPECT_EQ(Count(), 101u);  // p's 100 and the row that was there
  EXPECT_EQ(Get("q", Rk(49)), "{n=-1}");
  EXPECT_EQ(Get("q", Rk(0)), "NOT_FOUND");
}

TEST_P(BulkWriterTest, JsonLinesAreNumberedAcrossCallsAndABadLineNamesItsLine) {
  BulkWriteOptions o = Options();
  o.threads = 2;
  BulkWriter w = Writer(o);
  ASSERT_OK(w.AddJsonLines("{\"PartitionKey\":\"p\",\"RowKey\":\"1\",\"n\":1}\n\n   \r\n"));
  ASSERT_OK(
      w.AddJsonLines("{\"PartitionKey\":\"p\",\"RowKey\":\"2\",\"n\":2}\r\n"
                     "{\"PartitionKey\":\"p\",\"RowKey\":\"3\",\"n\":3000000000}\n"));
  Status s = w.Finish();
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(s.message().substr(0, 22), "line 5: property 'n': ") << s.ToString();
  EXPECT_EQ(w.report().bad_row, 2u);  // blank lines are not rows
  EXPECT_EQ(w.report().bad_line, 5u);
  EXPECT_EQ(w.report().lines_added, 5u);
  // Streaming: rows 0 and 1 wait in the bad row's group; validating first: nothing is written.
  EXPECT_EQ(w.report().rows_written, 0u);
  EXPECT_EQ(w.report().resume_line, 1u);
  EXPECT_EQ(Count(), 0u);
}

TEST_P(BulkWriterTest, JsonLinesOfATableWithoutSchemeNeedBothKeys) {
  BulkWriter w = Writer(Options());
  ASSERT_OK(w.AddJsonLines("{\"RowKey\":\"r\"}"));
  Status s = w.Flush();
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(s.message().rfind("line 1: property 'PartitionKey': missing", 0), 0u) << s.ToString();
}

TEST_P(BulkWriterTest, ATableKeySchemeComputesMissingKeys) {
  TableOptions scheme;
  scheme.partition_key_scheme = *KeyStrategy::Parse("hash-suffix(day,id,4)");
  ASSERT_OK(store_->CreateTable("Events", scheme));
  Table events = *store_->OpenTable("Events");
  auto w = BulkWriter::Create(events, Options());
  ASSERT_OK(w);
  std::string lines;
  for (int i = 0; i < 20; ++i) {
    lines += "{\"RowKey\":\"" + std::to_string(i) +
             "\",\"day\":\"2024-01-02\",\"id\":" + std::to_string(i) + "}\n";
  }
  ASSERT_OK(w->AddJsonLines(lines));
  ASSERT_OK(w->Finish()) << w->report().error.ToString();
  EXPECT_EQ(w->report().rows_written, 20u);
  Query q;
  q.page_size = 1000;
  auto page = events.QueryShards("2024-01-02", q);
  ASSERT_OK(page);
  EXPECT_EQ(page->entities.size(), 20u);
  Entity ask;
  ask.Set("day", Value::String("2024-01-02")).Set("id", Value::Int32(7));
  ask.set_row_key("7");
  EXPECT_OK(events.GetByAttributes(ask));
}

TEST_P(BulkWriterTest, StatisticsCountEveryRowWrittenPerPartition) {
  BulkWriter w = Writer(Options(/*group_rows=*/7));
  for (int i = 0; i < 60; ++i) ASSERT_OK(w.Add(Interleaved(i, 4)));
  ASSERT_OK(w.Finish());
  TableStats stats = table_->Statistics(10);
  uint64_t writes = 0;
  for (const auto& p : stats.partitions) writes += p.writes;
  EXPECT_EQ(writes, 60u);
  EXPECT_EQ(stats.total.writes, 60u);
  ASSERT_EQ(stats.hottest.size(), 4u);
  for (const auto& hot : stats.hottest) EXPECT_EQ(hot.operations, 15u) << hot.partition_key;
}

TEST_P(BulkWriterTest, FlushWritesWhatWasAddedWhenStreaming) {
  BulkWriter w = Writer(Options());
  ASSERT_OK(w.Add(Make("p", "1", 1)));
  ASSERT_OK(w.Flush());
  EXPECT_EQ(Count(), GetParam() ? 0u : 1u);
  ASSERT_OK(w.Finish());
  EXPECT_EQ(Count(), 1u);
  EXPECT_THAT(w.Add(Make("p", "2", 2)), StatusIs(Status::Code::kInvalidArgument));  // finished
}

TEST_P(BulkWriterTest, ARowInsertedByAnotherWriterMeanwhileFailsItsGroup) {
  // In the callback after the first group, another writer inserts a key of a later group.
  BulkWriteOptions o = Options(/*group_rows=*/4);
  bool inserted = false;
  o.on_group_written = [&](const BulkWrittenGroup&, const BulkWriteReport&) {
    if (!inserted) inserted = table_->Insert(Make("a", Rk(11), -1)).ok();
  };
  BulkWriter w = Writer(o);
  // One PartitionKey: stream order is key order, so row 11 is in the last group either way.
  for (int i = 0; i < 12; ++i) ASSERT_OK(w.Add(Make("a", Rk(i), i)));
  Status s = w.Finish();
  ASSERT_TRUE(inserted);
  ASSERT_THAT(s, StatusIs(Status::Code::kAlreadyExists));
  EXPECT_EQ(s.message(), "row 11: entity (PartitionKey 'a', RowKey '000011') already exists");
  EXPECT_EQ(w.report().bad_row, 11u);
  EXPECT_EQ(w.report().rows_written, 8u);  // the last group (rows 8-11) is not written
  EXPECT_EQ(Get("a", Rk(11)), "{n=-1}");
  EXPECT_EQ(Get("a", Rk(8)), "NOT_FOUND");
  EXPECT_EQ(w.report().resume_line, 0u);
}

// Tests of one table in a fresh store, without the writer's parameter.
class BulkTableTest : public testing::StoreFixture {};

TEST_F(BulkTableTest, OnlyInsertsAndUpsertsAndRoomForARow) {
  for (OpType bad : {OpType::kReplace, OpType::kMerge, OpType::kDelete}) {
    EXPECT_THAT(BulkWriter::Create(*table_, {.mode = bad}),
                StatusIs(Status::Code::kInvalidArgument));
  }
  EXPECT_THAT(BulkWriter::Create(*table_, {.max_group_rows = 0}),
              StatusIs(Status::Code::kInvalidArgument));
  ASSERT_OK(store_->DropTable("Items"));
  EXPECT_THAT(BulkWriter::Create(*table_), StatusIs(Status::Code::kNotFound));
}

class BulkWriterThrottleTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    StoreOptions o;
    o.throttling = true;
    o.clock = clock_;
    auto s = Store::Open(dir_.Sub("store"), o);
    ASSERT_OK(s);
    store_.emplace(std::move(*s));
    ASSERT_OK(store_->CreateTable("Items"));
    table_.emplace(*store_->OpenTable("Items"));
  }
  // `rows` rows of one PartitionKey. Azure's budget is 2,000 entities a second per partition,
  // with a second's burst: a group charges one partition at most 2,000 rows.
  Status AddRows(BulkWriter& w, int rows) {
    for (int i = 0; i < rows; ++i) PARTKV_RETURN_IF_ERROR(w.Add(Entity("p", RowKey(i))));
    return Status::OK();
  }
  BulkWriteOptions Options(bool retry) {
    BulkWriteOptions o;
    o.validate_before_writing = GetParam();
    if (retry) o.retry_throttled = RetryPolicy{};
    o.clock = clock_;
    return o;
  }
  testing::TempDir dir_;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(1'000'000);
  std::optional<Store> store_;
  std::optional<Table> table_;
};

INSTANTIATE_TEST_SUITE_P(Streaming, BulkWriterThrottleTest, ::testing::Values(false));
INSTANTIATE_TEST_SUITE_P(ValidateBeforeWriting, BulkWriterThrottleTest, ::testing::Values(true));

TEST_P(BulkWriterThrottleTest, AGroupTakesAPartitionsBurstAtMostAndWaitsForTheRest) {
  auto w = BulkWriter::Create(*table_, Options(/*retry=*/true));
  ASSERT_OK(w);
  ASSERT_OK(AddRows(*w, 5000));
  ASSERT_OK(w->Finish()) << w->report().error.ToString();
  const BulkWriteReport& r = w->report();
  EXPECT_EQ(r.rows_written, 5000u);
  // Groups of 2,000, 2,000 and 1,000 rows: the first takes the full bucket, the second waits
  // 1 s for it to refill, the third 0.5 s: the cloud's 2,000 entities a second.
  EXPECT_EQ(r.groups_written, 3u);
  EXPECT_EQ(r.throttled, 2u);
  EXPECT_EQ(r.throttled_wait_micros, 1'500'000);
  EXPECT_EQ(table_->Statistics().total.throttled, 2u);
}

TEST_P(BulkWriterThrottleTest, WithoutAPolicyThrottledTakesNothingAndTheSameCallResumes) {
  auto w = BulkWriter::Create(*table_, Options(/*retry=*/false));
  ASSERT_OK(w);
  ASSERT_OK(AddRows(*w, 3000));
  Status s = w->Finish();
  ASSERT_THAT(s, StatusIs(Status::Code::kThrottled));
  EXPECT_EQ(s.retry_after(), std::chrono::milliseconds(500));
  EXPECT_EQ(w->report().rows_written, 2000u);  // the second group waits
  EXPECT_EQ(w->report().throttled, 1u);
  EXPECT_OK(w->report().error);  // not a stop
  clock_->Advance(std::chrono::microseconds(s.retry_after()).count());
  ASSERT_OK(w->Finish()) << w->report().error.ToString();
  EXPECT_EQ(w->report().rows_written, 3000u);
  // Reads draw on the same budget: let it refill first.
  clock_->Advance(10'000'000);
  EXPECT_OK(table_->Get("p", RowKey(2999)));
  EXPECT_OK(table_->Get("p", RowKey(0)));
}

// The stage itself: many small runs, merged a few at a time, read back in key order, each row
// exactly once.
TEST_F(BulkTableTest, ManyStagedRunsMergeIntoOneKeyOrder) {
  engine::TableHandle& handle = FrontAccess::Of(*table_);
  auto sealer = handle.NewRowSealer(OpType::kInsertOrReplace);
  ASSERT_OK(sealer);
  auto stage = engine::BulkStage::Create(handle, *sealer, dir_.path(), /*run_bytes=*/2048,
                                         /*fan_in=*/3);
  ASSERT_OK(stage);
  std::string sealed;
  for (int i = 0; i < 400; ++i) {
    sealed.clear();
    // Keys repeat (i % 350): repeated keys come back in stream order.
    Entity e("k" + std::to_string((i * 7) % 350), "r");
    e.Set("n", Value::Int32(i));
    ASSERT_OK(sealer->Seal(e, &sealed));
    engine::SealedRow row;
    ASSERT_TRUE(*sealer->Parse(sealed, &row));
    ASSERT_OK((*stage)->Add(row, i, 0));
  }
  ASSERT_OK((*stage)->Close());
  EXPECT_GT((*stage)->runs(), 3u);
  for (int pass = 0; pass < 2; ++pass) {
    auto reader = (*stage)->Read();
    ASSERT_OK(reader);
    EXPECT_GT((*stage)->merges(), 0u);
    engine::StagedRow row;
    std::string previous_key;
    uint64_t previous_position = 0;
    std::set<uint64_t> seen;
    while (true) {
      auto more = (*reader)->Next(&row);
      ASSERT_OK(more);
      if (!*more) break;
      std::string key(row.key);
      ASSERT_TRUE(previous_key < key || (previous_key == key && previous_position < row.position));
      previous_key = key;
      previous_position = row.position;
      EXPECT_TRUE(seen.insert(row.position).second);
    }
    EXPECT_EQ(seen.size(), 400u);
  }
}

}  // namespace
}  // namespace partkv
