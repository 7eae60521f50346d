// The remote client against servers that misbehave (tests/testing/hostile_endpoint.h), through
// the public API: each behaviour ends in the documented outcome (docs/remote.md "What the
// client checks"), within a bound on time and, where the server sends without end, on the
// process's peak memory. Each test runs in a process of its own (gtest_discover_tests), so the
// peak is the test's.

#include "tests/testing/hostile_endpoint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include "partkv/partkv.h"
#include "tests/testing/status_matchers.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using Behaviour = testing::HostileEndpoint::Behaviour;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// The process's peak resident memory (VmHWM), in MiB.
// A field of /proc/self/status in MiB: "VmHWM:" (the peak RSS) or "VmRSS:".
double StatusMib(const char* field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field, 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024;
  }
  return 0;
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

class HostileEndpointTest : public ::testing::Test {
 protected:
  // Each test's peak is its own, also when the tests share a process (CTest runs each alone): the
  // high-water mark starts again from the current RSS (Linux: "5" to /proc/self/clear_refs), and
  // what earlier tests left with the allocator is not counted.
  void SetUp() override {
    std::ofstream("/proc/self/clear_refs") << "5";
    rss_at_start_ = StatusMib("VmRSS:");
  }
  // The peak RSS of this test: of the process when it runs alone.
  double PeakRssMib() const { return StatusMib("VmHWM:") - rss_at_start_; }

  double rss_at_start_ = 0;

  // A store on an endpoint of `behaviour`, retrying at most twice, without waiting long.
  Store Open(Behaviour behaviour, StoreOptions options = {}) {
    endpoint_ = std::make_unique<testing::HostileEndpoint>(behaviour);
    options.remote.retry.max_attempts = 2;
    options.remote.retry.initial_backoff = 1ms;
    options.remote.retry.max_total = 5s;
    auto store = Store::Open(endpoint_->connection_string(), options);
    EXPECT_OK(store);
    return std::move(*store);
  }

  Table OpenTable(Store& store, OpenTableOptions options = {}) {
    auto table = store.OpenTable("Hostile", options);
    EXPECT_OK(table);
    return std::move(*table);
  }

  std::unique_ptr<testing::HostileEndpoint> endpoint_;
};

// 1. A continuation that never advances is an error, not a loop.

TEST_F(HostileEndpointTest, ContinuationHandedBackIsCorruptionNotALoop) {
  Store store = Open(Behaviour::kSameContinuation);
  Table table = OpenTable(store);
  const auto start = Clock::now();
  Query q;
  auto first = table.QueryEntities(q);
  ASSERT_OK(first);
  ASSERT_TRUE(first->has_more());
  q.continuation = first->continuation;
  auto second = table.QueryEntities(q);
  EXPECT_THAT(second,
              StatusIs(Status::Code::kCorruption, AllOf(HasSubstr("very continuation it was sent"),
                                                        HasSubstr(endpoint_->url()))));
  EXPECT_LE(endpoint_->requests(), 3u);
  EXPECT_LT(SecondsSince(start), 5);
}

TEST_F(HostileEndpointTest, ShardContinuationHandedBackIsCorruption) {
  Store store = Open(Behaviour::kSameContinuation);
  OpenTableOptions schemes;
  schemes.partition_key_scheme = *KeyStrategy::Parse("random-suffix(device,4)");
  Table table = OpenTable(store, schemes);
  const auto start = Clock::now();
  auto page = table.QueryShards("d1", Query{});
  EXPECT_THAT(page, StatusIs(Status::Code::kCorruption, HasSubstr("very continuation")));
  EXPECT_LE(endpoint_->requests(), 2u + 2 * 4u);
  EXPECT_LT(SecondsSince(start), 5);
}

TEST_F(HostileEndpointTest, ShardRowRepeatedIsCorruption) {
  // The same row on every page, with a new continuation each time: the shard's rows stop being
  // in order at the second page.
  Store store = Open(Behaviour::kSameContinuationSameRow);
  OpenTableOptions schemes;
  schemes.partition_key_scheme = *KeyStrategy::Parse("random-suffix(device,1)");
  Table table = OpenTable(store, schemes);
  auto page = table.QueryShards("p", Query{});
  EXPECT_THAT(page, StatusIs(Status::Code::kCorruption, HasSubstr("its rows are not in order")));
}

TEST_F(HostileEndpointTest, EmptyPagesInACycleEndWithinTheBound) {
  // A shard whose server alternates two continuations, never a row: the top-up stops after
  // kMaxEmptyPagesInARow pages, not never.
  Store store = Open(Behaviour::kContinuationCycle);
  OpenTableOptions schemes;
  schemes.partition_key_scheme = *KeyStrategy::Parse("random-suffix(device,1)");
  Table table = OpenTable(store, schemes);
  const auto start = Clock::now();
  auto page = table.QueryShards("d1", Query{});
  EXPECT_THAT(page, StatusIs(Status::Code::kCorruption, HasSubstr("pages in a row without a row")));
  EXPECT_LE(endpoint_->requests(), 1003u);
  EXPECT_LT(SecondsSince(start), 30);
}

// 2. Memory: one budget for the responses in flight, whatever the framing.

TEST_F(HostileEndpointTest, EndlessChunkedBodyStopsAtTheMemoryBudget) {
  Store store = Open(Behaviour::kEndlessChunkedBody);
  Table table = OpenTable(store);
  const auto start = Clock::now();
  auto page = table.QueryEntities(Query{});
  EXPECT_THAT(page, StatusIs(Status::Code::kIOError, HasSubstr("max_response_memory")));
  if (testing::kMemoryBoundsHold) EXPECT_LT(PeakRssMib(), 600);
  EXPECT_LT(endpoint_->bytes_sent(), testing::HostileEndpoint::kMaxResponseBytes);
  EXPECT_LT(SecondsSince(start), 30);
}

TEST_F(HostileEndpointTest, CloseDelimitedBodyStopsAtTheMemoryBudget) {
  StoreOptions options;
  options.remote.max_response_memory = 64u << 20;
  Store store = Open(Behaviour::kCloseDelimitedBody, options);
  Table table = OpenTable(store);
  auto page = table.QueryEntities(Query{});
  EXPECT_THAT(page,
              StatusIs(Status::Code::kIOError, HasSubstr("max_response_memory (67108864 bytes)")));
  if (testing::kMemoryBoundsHold) EXPECT_LT(PeakRssMib(), 250);
}

TEST_F(HostileEndpointTest, ShardsInFlightShareOneBudget) {
  // Eight shards' requests at once, each answered without end: together they hold the budget
  // (256 MiB), not eight times a response's limit.
  Store store = Open(Behaviour::kEndlessChunkedBody);
  OpenTableOptions schemes;
  schemes.partition_key_scheme = *KeyStrategy::Parse("random-suffix(device,8)");
  Table table = OpenTable(store, schemes);
  auto page = table.QueryShards("d1", Query{});
  EXPECT_THAT(page, StatusIs(Status::Code::kIOError, HasSubstr("max_response_memory")));
  if (testing::kMemoryBoundsHold) EXPECT_LT(PeakRssMib(), 600);
}

// 3. No secret in any message; 401/403 are PermissionDenied.

TEST_F(HostileEndpointTest, EchoedSignatureNeverReachesAMessage) {
  endpoint_ = std::make_unique<testing::HostileEndpoint>(Behaviour::kEcho403);
  const std::string signature = "SeCrEtSiGnAtUrE0123456789abcdefXYZ%2B%2F%3D";
  const std::string decoded = "SeCrEtSiGnAtUrE0123456789abcdefXYZ+/=";
  StoreOptions options;
  options.remote.retry.max_attempts = 1;
  auto store = Store::Open(endpoint_->sas_url(signature), options);
  ASSERT_OK(store);
  auto check = [&](const Status& s, const char* call) {
    EXPECT_THAT(s, StatusIs(Status::Code::kPermissionDenied)) << call;
    EXPECT_THAT(std::string(s.message()), HasSubstr("AuthenticationFailed")) << call;
    for (const std::string& secret : {signature, decoded, std::string("SeCrEtSiGnAtUrE")}) {
      EXPECT_THAT(s.ToString(), Not(HasSubstr(secret))) << call;
    }
  };
  check(store->CreateTable("Hostile"), "CreateTable");
  check(store->DropTable("Hostile"), "DropTable");
  check(store->ListTables().status(), "ListTables");
  check(store->ServiceProperties().status(), "ServiceProperties");
  check(store->SetServiceProperties("<StorageServiceProperties/>"), "SetServiceProperties");
  check(store->ServiceStats().status(), "ServiceStats");
  auto table = store->OpenTable("Hostile");  // a table lookup is answered
  ASSERT_OK(table);
  Entity e("p", "r");
  e.Set("n", Value::Int32(1));
  check(table->Insert(e).status(), "Insert");
  check(table->InsertOrReplace(e).status(), "InsertOrReplace");
  check(table->Merge(e, IfMatch::Any()).status(), "Merge");
  check(table->Delete("p", "r", IfMatch::Any()), "Delete");
  check(table->Get("p", "r").status(), "Get");
  check(table->QueryEntities(Query{}).status(), "QueryEntities");
  Batch batch;
  batch.Insert(e);
  check(table->Submit(batch).status(), "Submit");
}

TEST_F(HostileEndpointTest, EchoedSharedKeySignatureNeverReachesAMessage) {
  Store store = Open(Behaviour::kEcho403);
  Status s = store.CreateTable("Hostile");
  EXPECT_THAT(s, StatusIs(Status::Code::kPermissionDenied));
  EXPECT_THAT(std::string(s.message()), HasSubstr("SharedKey devstoreaccount1:<redacted>"));
}

// 4. Answers for another key, range or table are refused.

TEST_F(HostileEndpointTest, TableLookupAnsweredAboutAnotherTableIsCorruption) {
  Store store = Open(Behaviour::kOtherKeys);
  auto table = store.OpenTable("Hostile");
  // The table lookup itself answers about another table.
  EXPECT_THAT(table, StatusIs(Status::Code::kCorruption, HasSubstr("OtherTable")));
}

TEST_F(HostileEndpointTest, RowsOfAnotherPartitionOrTableAreCorruption) {
  Store store = Open(Behaviour::kOtherTableMetadata);
  Table table = OpenTable(store);
  Query q;
  q.partition_key = "p";
  EXPECT_THAT(table.QueryEntities(q),
              StatusIs(Status::Code::kCorruption, HasSubstr("rows of table 'OtherTable'")));
}

TEST_F(HostileEndpointTest, QueryRowOutsideTheAskedPartitionIsCorruption) {
  endpoint_ = std::make_unique<testing::HostileEndpoint>(Behaviour::kOtherKeys);
  auto store = Store::Open(endpoint_->connection_string());
  ASSERT_OK(store);
  // kOtherKeys answers every table lookup about "OtherTable": that one opens.
  auto table = store->OpenTable("OtherTable");
  ASSERT_OK(table);
  Query q;
  q.partition_key = "p";
  EXPECT_THAT(table->QueryEntities(q),
              StatusIs(Status::Code::kCorruption,
                       AllOf(HasSubstr("(PartitionKey 'otherpk', RowKey 'otherrk')"),
                             HasSubstr("did not ask for"))));
  EXPECT_THAT(table->Get("p", "r"),
              StatusIs(Status::Code::kCorruption,
                       HasSubstr("answered with the entity (PartitionKey 'otherpk'")));
  // The same key asked for through the filter alone.
  Query filtered;
  filtered.filter = "PartitionKey eq 'p' and Amount gt 3";
  EXPECT_THAT(table->QueryEntities(filtered),
              StatusIs(Status::Code::kCorruption,
                       HasSubstr("did not ask for (the PartitionKey conditions of its filter)")));
}

// 5. Retry-after values that overflow are clamped, never negative.

TEST_F(HostileEndpointTest, RetryAfterBeyondEveryIntegerIsClampedToAnHour) {
  StoreOptions options;
  Store store = Open(Behaviour::kRetryAfterOverflow, options);
  Table table = OpenTable(store);
  const auto start = Clock::now();
  auto got = table.Get("p", "r");
  ASSERT_THAT(got, StatusIs(Status::Code::kThrottled));
  EXPECT_EQ(got.status().retry_after(), std::chrono::hours(1));
  // An hour is past RetryOptions::max_total: no wait at all, the answer comes at once.
  EXPECT_LT(SecondsSince(start), 5);
}

TEST_F(HostileEndpointTest, RetryAfterMsOfDoubleRangeIsClampedToAnHour) {
  Store store = Open(Behaviour::kRetryAfterMsOverflow);
  Table table = OpenTable(store);
  auto got = table.QueryEntities(Query{});
  ASSERT_THAT(got, StatusIs(Status::Code::kThrottled));
  EXPECT_EQ(got.status().retry_after(), std::chrono::hours(1));
}

// 6. A malformed page is Corruption, not an empty last page.

TEST_F(HostileEndpointTest, MalformedPageIsCorruptionNotTheEnd) {
  Store store = Open(Behaviour::kMalformedPage);
  Table table = OpenTable(store);
  EXPECT_THAT(
      table.QueryEntities(Query{}),
      StatusIs(Status::Code::kCorruption, HasSubstr("an element of \"value\" is not an object")));
}

// 7. A continuation too long for a token is refused at the first page.

TEST_F(HostileEndpointTest, ContinuationTooLongForATokenIsRefusedAtTheFirstPage) {
  Store store = Open(Behaviour::kLongContinuation);
  Table table = OpenTable(store);
  EXPECT_THAT(table.QueryEntities(Query{}),
              StatusIs(Status::Code::kCorruption,
                       AllOf(HasSubstr("90008 bytes"), HasSubstr("more than the 4096"))));
  EXPECT_EQ(endpoint_->requests(), 2u);  // the table lookup and the one page
}

}  // namespace
}  // namespace partkv
