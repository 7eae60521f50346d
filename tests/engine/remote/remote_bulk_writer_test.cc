// The bulk writer on a remote table (partkv/bulk_writer.h "On a remote table";
// api/front/remote_bulk_writer.h), over `partkv serve`: the stream cut into the batches an Azure
// client submits, several in flight, those of one PartitionKey in stream order; a conflict stops
// it with the rows written stated exactly (the longest prefix, and the batches in flight beside
// the failing one); validate_before_writing; Throttled from the service under retry_throttled or
// returned and resumed. A second Store without the writer's client reads what the server holds;
// the writer's own Table::Statistics count the rows its client had acknowledged, which is how a
// row written twice would show.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "partkv/partkv.h"
#include "tests/testing/endpoint_server.h"
#include "tests/testing/fault_proxy.h"
#include "tests/testing/status_matchers.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

using namespace std::chrono_literals;
using testing::FaultProxy;

const testing::ServerPrograms kPrograms{PARTKV_CLI_PATH, PARTKV_AZURITE_DIR};

// "%06d": row keys whose byte order is their numeric order.
std::string Rk(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%06d", i);
  return buf;
}

Entity Row(const std::string& pk, const std::string& rk, int n) {
  Entity e(pk, rk);
  e.Set("n", Value::Int32(n));
  return e;
}

std::string Line(const Entity& e) { return EntityToJson(e) + "\n"; }

uint64_t AlsoWritten(const BulkWriteReport& report) {
  uint64_t rows = 0;
  for (const BulkRowRange& r : report.also_written) rows += r.end - r.begin;
  return rows;
}

class RemoteBulkWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = testing::SharedEndpoint(testing::EndpointKind::kPartkvServe, kPrograms);
    ASSERT_OK(server);
    proxy_ = std::make_unique<FaultProxy>("127.0.0.1", (*server)->port());
    auto reader = Store::Open((*server)->connection_string());
    ASSERT_OK(reader);
    reader_.emplace(std::move(*reader));
    Open({});
  }

  // The writer's store, through the proxy.
  virtual StoreOptions Options() const { return {}; }

  // The writer's store and a new table named after the test, opened with `schemes`.
  void Open(const OpenTableOptions& schemes) {
    auto store = Store::Open(
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;"
        "AccountKey=" +
            std::string(testing::kDevAccountKey) + ";TableEndpoint=" + proxy_->url() +
            "/devstoreaccount1;",
        Options());
    ASSERT_OK(store);
    store_.emplace(std::move(*store));
    name_.clear();
    for (char c : std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())) {
      if (std::isalnum(static_cast<unsigned char>(c)) && name_.size() < 60) name_ += c;
    }
    (void)reader_->DropTable(name_);
    ASSERT_OK(reader_->CreateTable(name_));
    auto table = store_->OpenTable(name_, schemes);
    ASSERT_OK(table);
    table_.emplace(std::move(*table));
  }

  BulkWriter Writer(const BulkWriteOptions& options) {
    auto w = BulkWriter::Create(*table_, options);
    EXPECT_OK(w);
    return std::move(*w);
  }

  // Every stored entity: "pk/rk" -> n, read through the other store.
  std::map<std::string, int> Contents() {
    std::map<std::string, int> out;
    auto table = reader_->OpenTable(name_);
    EXPECT_OK(table);
    if (!table.ok()) return out;
    Query q;
    while (true) {
      auto page = table->QueryEntities(q);
      EXPECT_OK(page);
      if (!page.ok()) return out;
      for (const Entity& e : page->entities) {
        const Value* n = e.Get("n");
        out[e.partition_key() + "/" + e.row_key()] = n ? n->as_int32() : -1;
      }
      if (!page->has_more()) return out;
      q.continuation = page->continuation;
    }
  }

  // Batches that reached the server: one per batch submitted, so a batch sent twice shows.
  int BatchesForwarded() const { return proxy_->Forwarded("POST", "/devstoreaccount1/$batch"); }

  std::unique_ptr<FaultProxy> proxy_;
  std::optional<Store> store_, reader_;
  std::optional<Table> table_;
  std::string name_;
};

// 60 PartitionKeys of 50 rows: one batch each, so that every batch before the failing one has
// been started, and has finished, when the writer stops.
TEST_F(RemoteBulkWriterTest, AConflictStopsAtItsBatchWithEveryEarlierBatchWritten) {
  constexpr int kKeys = 60, kRows = 50, kBad = 30 * kRows + 20;
  auto existing = reader_->OpenTable(name_);
  ASSERT_OK(existing);
  ASSERT_OK(existing->Insert(Row("p30", Rk(kBad), -7)));

  BulkWriteOptions options;
  options.max_batches_in_flight = 8;
  BulkWriter w = Writer(options);
  Status s;
  for (int i = 0; i < kKeys * kRows && s.ok(); ++i) {
    s = w.Add(Row("p" + std::to_string(i / kRows), Rk(i), i));
  }
  if (s.ok()) s = w.Finish();
  ASSERT_THAT(s, StatusIs(Status::Code::kAlreadyExists));
  EXPECT_EQ(s.message().substr(0, 10), "row 1520: ") << s.ToString();

  const BulkWriteReport& r = w.report();
  ASSERT_TRUE(r.bad_row.has_value());
  EXPECT_EQ(*r.bad_row, static_cast<uint64_t>(kBad));
  EXPECT_EQ(r.bad_line, 0u);
  EXPECT_EQ(r.rows_written, 30u * kRows);  // every row before the batch of the bad row
  EXPECT_EQ(r.batches_written, 30u);
  EXPECT_EQ(r.resume_line, 0u);  // rows from Add have no line
  EXPECT_THAT(r.error, StatusIs(Status::Code::kAlreadyExists));
  // Past the failing batch: only whole batches that were in flight beside it.
  std::set<int> expected;
  for (int i = 0; i < static_cast<int>(r.rows_written); ++i) expected.insert(i);
  for (const BulkRowRange& range : r.also_written) {
    EXPECT_GE(range.begin, 31u * kRows);
    EXPECT_EQ(range.begin % kRows, 0u);
    EXPECT_EQ(range.end % kRows, 0u);
    EXPECT_LT(range.begin, range.end);
    for (uint64_t i = range.begin; i < range.end; ++i) expected.insert(static_cast<int>(i));
  }
  // At most 2 x 8 batches wait for their answer, the failing one among them.
  EXPECT_LE(AlsoWritten(r), 15u * kRows);

  std::map<std::string, int> stored = Contents();
  EXPECT_EQ(stored.size(), expected.size() + 1);
  EXPECT_EQ(stored["p30/" + Rk(kBad)], -7);  // the existing row is untouched
  for (int i : expected) {
    EXPECT_EQ(stored["p" + std::to_string(i / kRows) + "/" + Rk(i)], i) << "row " << i;
  }
  // Each batch sent once: the 30 before the failing one, it, and those in also_written.
  EXPECT_EQ(BatchesForwarded(), 31 + static_cast<int>(AlsoWritten(r) / kRows));
  // Every later call returns the stop.
  EXPECT_THAT(w.Add(Row("q", "r", 0)), StatusIs(Status::Code::kAlreadyExists));
  EXPECT_THAT(w.Finish(), StatusIs(Status::Code::kAlreadyExists));
}

// Batches of one PartitionKey go one after another: row 200 repeats row 10's key in a later
// batch, and fails, in insert mode, at the later row, with rows 0..199 written.
TEST_F(RemoteBulkWriterTest, ARepeatedKeyFailsAtTheLaterRowAndNamesItsLine) {
  std::string lines = "\n";  // line 1 is blank: row i is on line i + 2
  for (int i = 0; i < 250; ++i) lines += Line(Row("a", Rk(i == 200 ? 10 : i), i));
  BulkWriteOptions options;
  options.max_batches_in_flight = 4;
  BulkWriter w = Writer(options);
  Status s;
  // Handed over in pieces that cut no line.
  for (size_t at = 0; at < lines.size() && s.ok();) {
    size_t end = lines.find('\n', std::min(lines.size() - 1, at + 3000)) + 1;
    s = w.AddJsonLines(std::string_view(lines).substr(at, end - at));
    at = end;
  }
  if (s.ok()) s = w.Finish();
  ASSERT_THAT(s, StatusIs(Status::Code::kAlreadyExists));
  EXPECT_EQ(s.message().substr(0, 10), "line 202: ") << s.ToString();
  const BulkWriteReport& r = w.report();
  EXPECT_EQ(r.bad_row, 200u);
  EXPECT_EQ(r.bad_line, 202u);
  EXPECT_EQ(r.rows_written, 200u);
  EXPECT_EQ(r.resume_line, 202u);
  EXPECT_TRUE(r.also_written.empty());
  EXPECT_EQ(r.lines_added, 251u);

  std::map<std::string, int> stored = Contents();
  ASSERT_EQ(stored.size(), 200u);
  EXPECT_EQ(stored["a/" + Rk(10)], 10);  // the earlier row's
  EXPECT_EQ(stored["a/" + Rk(199)], 199);
  EXPECT_EQ(BatchesForwarded(), 3);
}

// Five passes over the same 300 keys of three PartitionKeys, every pass a batch per key,
// interleaved: the later pass wins every key, and a merge keeps what every pass merged in.
TEST_F(RemoteBulkWriterTest, UpsertsAndMergesOfOneKeyApplyInStreamOrder) {
  BulkWriteOptions options;
  options.mode = OpType::kInsertOrMerge;
  options.max_batches_in_flight = 8;
  BulkWriter w = Writer(options);
  for (int pass = 0; pass < 5; ++pass) {
    for (const char* pk : {"a", "b", "c"}) {
      for (int k = 0; k < 100; ++k) {
        Entity e = Row(pk, Rk(k), pass);
        e.Set("p" + std::to_string(pass), Value::Int32(pass));
        ASSERT_OK(w.Add(e));
      }
    }
  }
  ASSERT_OK(w.Finish()) << w.report().error.ToString();
  EXPECT_EQ(w.report().rows_written, 1500u);
  EXPECT_EQ(w.report().batches_written, 15u);
  EXPECT_EQ(BatchesForwarded(), 15);

  auto table = reader_->OpenTable(name_);
  ASSERT_OK(table);
  size_t entities = 0;
  for (Query q;;) {
    auto page = table->QueryEntities(q);
    ASSERT_OK(page);
    for (const Entity& e : page->entities) {
      ++entities;
      ASSERT_NE(e.Get("n"), nullptr);
      EXPECT_EQ(e.Get("n")->as_int32(), 4) << e.DebugString();
      for (int pass = 0; pass < 5; ++pass) {
        EXPECT_NE(e.Get("p" + std::to_string(pass)), nullptr) << e.DebugString();
      }
    }
    if (!page->has_more()) break;
    q.continuation = page->continuation;
  }
  EXPECT_EQ(entities, 300u);
}

TEST_F(RemoteBulkWriterTest, ValidateBeforeWritingWritesNothingWhenALineIsBad) {
  std::string lines;
  for (int i = 0; i < 2000; ++i) {
    lines += i == 1499 ? R"({"PartitionKey":"p","RowKey":"x","n":3000000000})"
                         "\n"
                       : Line(Row("p" + std::to_string(i % 7), Rk(i), i));
  }
  BulkWriteOptions options;
  options.validate_before_writing = true;
  BulkWriter w = Writer(options);
  Status s = w.AddJsonLines(lines);
  if (s.ok()) s = w.Flush();
  ASSERT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(s.message().substr(0, 11), "line 1500: ") << s.ToString();
  EXPECT_EQ(w.report().rows_written, 0u);
  EXPECT_EQ(w.report().bad_line, 1500u);
  EXPECT_EQ(w.report().resume_line, 1u);
  EXPECT_TRUE(Contents().empty());
  EXPECT_EQ(BatchesForwarded(), 0);
}

// validate_before_writing: the rows wait in the spill file, then go in stream order; each batch
// is reported once, in order, with the ETags the service gave.
TEST_F(RemoteBulkWriterTest, ValidateBeforeWritingWritesTheStreamInOrderWithTheServicesEtags) {
  std::vector<uint64_t> positions;
  std::map<std::string, std::string> etags;  // "pk/rk" -> ETag reported
  std::vector<size_t> batch_sizes;
  BulkWriteOptions options;
  options.validate_before_writing = true;
  options.max_group_rows = 40;  // batches of 40 at most
  options.on_group_written = [&](const BulkWrittenGroup& g, const BulkWriteReport& report) {
    batch_sizes.push_back(g.size());
    for (size_t i = 0; i < g.size(); ++i) {
      positions.push_back(g.row(i));
      const int row = static_cast<int>(g.row(i));
      etags["k" + std::to_string(row / 90) + "/" + Rk(row)] = g.result(i).etag;
    }
    EXPECT_EQ(report.rows_written, positions.size());
  };
  BulkWriter w = Writer(options);
  std::string lines;
  for (int i = 0; i < 2700; ++i) lines += Line(Row("k" + std::to_string(i / 90), Rk(i), i));
  ASSERT_OK(w.AddJsonLines(lines));
  ASSERT_OK(w.Flush());
  EXPECT_TRUE(Contents().empty()) << "nothing is written before Finish";
  ASSERT_OK(w.Finish()) << w.report().error.ToString();

  ASSERT_EQ(positions.size(), 2700u);
  for (size_t i = 0; i < positions.size(); ++i) ASSERT_EQ(positions[i], i);
  // 90 rows of a key: batches of 40, 40 and 10.
  EXPECT_EQ(batch_sizes.size(), 90u);
  EXPECT_EQ(w.report().batches_written, 90u);
  for (size_t b = 0; b < batch_sizes.size(); ++b) EXPECT_EQ(batch_sizes[b], b % 3 == 2 ? 10u : 40u);

  auto table = reader_->OpenTable(name_);
  ASSERT_OK(table);
  for (int i : {0, 1, 89, 90, 1234, 2699}) {
    auto e = table->Get("k" + std::to_string(i / 90), Rk(i));
    ASSERT_OK(e);
    EXPECT_EQ(e->etag(), etags["k" + std::to_string(i / 90) + "/" + Rk(i)]);
  }
  EXPECT_EQ(Contents().size(), 2700u);
  EXPECT_EQ(BatchesForwarded(), 90);
}

// A remote table's key schemes come with the handle (OpenTableOptions): JSON lines without
// PartitionKey get the key the scheme computes, as Table::ComputeKeys computes it.
TEST_F(RemoteBulkWriterTest, TheSchemesGivenAtOpenComputeMissingKeys) {
  OpenTableOptions schemes;
  schemes.partition_key_scheme = *KeyStrategy::Parse("hash-suffix(day,device,4)");
  Open(schemes);
  BulkWriter w = Writer({});
  std::string lines;
  for (int i = 0; i < 300; ++i) {
    lines += R"({"day":"2026-12-01","device":"d)" + std::to_string(i % 13) + R"(","RowKey":")" +
             Rk(i) + R"(","n":)" + std::to_string(i) + "}\n";
  }
  ASSERT_OK(w.AddJsonLines(lines));
  ASSERT_OK(w.Finish()) << w.report().error.ToString();
  std::map<std::string, int> stored = Contents();
  ASSERT_EQ(stored.size(), 300u);
  for (int i = 0; i < 300; ++i) {
    Entity attributes;
    attributes.Set("day", Value::String("2026-12-01"));
    attributes.Set("device", Value::String("d" + std::to_string(i % 13)));
    auto keyed = table_->ComputeKeys(attributes, OpType::kInsert);
    ASSERT_OK(keyed);
    EXPECT_EQ(stored[keyed->partition_key() + "/" + Rk(i)], i) << "row " << i;
  }
}

// Throttled from the service: a proxy answers 503 ServerBusy in the server's place, and the
// client does not retry (max_attempts 1), so the writer sees Throttled.
class RemoteBulkWriterThrottleTest : public RemoteBulkWriterTest {
 protected:
  StoreOptions Options() const override {
    StoreOptions options;
    options.remote.retry.max_attempts = 1;
    return options;
  }
  void Busy(int times) {
    proxy_->AddRule(
        {.fault = FaultProxy::Fault::kRespond,
         .method = "POST",
         .target_contains = "$batch",
         .times = times,
         .status = 503,
         .headers = {{"x-ms-retry-after-ms", "5"}},
         .body = R"({"odata.error":{"code":"ServerBusy","message":{"value":"busy"}}})"});
  }
};

TEST_F(RemoteBulkWriterThrottleTest, UnderRetryThrottledAThrottledBatchIsSubmittedAgain) {
  Busy(3);
  auto clock = std::make_shared<ManualClock>();
  BulkWriteOptions options;
  options.retry_throttled = RetryPolicy{};
  options.clock = clock;  // the waits advance it; nothing sleeps
  BulkWriter w = Writer(options);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_OK(w.Add(Row("p" + std::to_string(i / 100), Rk(i), i)));
  }
  ASSERT_OK(w.Finish()) << w.report().error.ToString();
  EXPECT_EQ(w.report().rows_written, 1000u);
  EXPECT_EQ(w.report().throttled, 3u);
  EXPECT_GE(w.report().throttled_wait_micros, 3 * 5000);
  EXPECT_EQ(Contents().size(), 1000u);
  // Ten batches reached the server, each once.
  EXPECT_EQ(BatchesForwarded(), 10);
}

TEST_F(RemoteBulkWriterThrottleTest, WithoutAPolicyThrottledTakesNothingAndTheNextCallResumes) {
  Busy(1);
  BulkWriteOptions options;
  options.max_batches_in_flight = 2;
  BulkWriter w = Writer(options);
  int throttled = 0;
  for (int i = 0; i < 1000; ++i) {
    const Entity row = Row("p" + std::to_string(i / 100), Rk(i), i);
    Status s;
    while ((s = w.Add(row)).IsThrottled()) {
      ++throttled;
      EXPECT_EQ(s.retry_after(), 5ms);
      EXPECT_EQ(w.report().rows_added, static_cast<uint64_t>(i)) << "the row was not taken";
    }
    ASSERT_OK(s);
  }
  Status s;
  while ((s = w.Finish()).IsThrottled()) ++throttled;
  ASSERT_OK(s);
  EXPECT_EQ(throttled, 1);
  EXPECT_EQ(w.report().throttled, 1u);
  EXPECT_EQ(w.report().rows_written, 1000u);
  std::map<std::string, int> stored = Contents();
  ASSERT_EQ(stored.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(stored["p" + std::to_string(i / 100) + "/" + Rk(i)], i);
  EXPECT_EQ(BatchesForwarded(), 10);
}

TEST_F(RemoteBulkWriterTest, NoBatchInFlightIsRefused) {
  BulkWriteOptions options;
  options.max_batches_in_flight = 0;
  auto w = BulkWriter::Create(*table_, options);
  ASSERT_THAT(w, StatusIs(Status::Code::kInvalidArgument));
}

}  // namespace
}  // namespace partkv
