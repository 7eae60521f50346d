// The remote backend under faults (docs/remote.md "Writes, batches and the lost-write rule",
// "Errors", "Retries and timeouts", "Faults"). A remote Store talks to `partkv serve` through
// FaultProxy (tests/testing/fault_proxy.h), which drops, answers, stalls or truncates requests by
// rule and counts the requests it received and forwarded per (method, target); a second Store,
// without the proxy, reads what the server holds. Each case ends in the documented outcome with
// bounded retries, no write applied twice and no acknowledged write missing. The HTTPS cases run
// against Azurite, through a TCP relay that counts the connections the client opens.
//
// Waits are asserted as lower bounds only (the client waits at least what the server asked);
// nothing here sleeps to synchronise.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <array>
#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "partkv/partkv.h"
#include "tests/testing/endpoint_server.h"
#include "tests/testing/fault_proxy.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

using namespace std::chrono_literals;
using testing::FaultProxy;
using ::testing::HasSubstr;
using ::testing::Not;
using Fault = FaultProxy::Fault;
using Clock = std::chrono::steady_clock;

const testing::ServerPrograms kPrograms{PARTKV_CLI_PATH, PARTKV_AZURITE_DIR};

// Retries fast enough for tests: the same policy as the default, with millisecond back-offs.
RemoteOptions FastRetries() {
  RemoteOptions options;
  options.retry.max_attempts = 4;
  options.retry.initial_backoff = 5ms;
  options.retry.max_backoff = 50ms;
  options.retry.max_total = 30s;
  options.connect_timeout = 5s;
  options.request_timeout = 10s;
  return options;
}

StoreOptions WithRemote(const RemoteOptions& remote) {
  StoreOptions options;
  options.remote = remote;
  return options;
}

std::string ConnectionString(std::string_view scheme, int port,
                             std::string_view key = testing::kDevAccountKey) {
  return "DefaultEndpointsProtocol=" + std::string(scheme) +
         ";AccountName=" + std::string(testing::kDevAccountName) +
         ";AccountKey=" + std::string(key) + ";TableEndpoint=" + std::string(scheme) +
         "://127.0.0.1:" + std::to_string(port) + "/" + std::string(testing::kDevAccountName) + ";";
}

std::chrono::milliseconds Since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
}

// An entity with a property of every type, so that the lost-write rule's comparison of what was
// sent with what the service stores covers each type's round trip.
Entity Row(std::string pk, std::string rk, int n) {
  Entity e(std::move(pk), std::move(rk));
  e.Set("n", Value::Int32(n));
  e.Set("big", Value::Int64((int64_t{1} << 40) + n));
  e.Set("ratio", Value::Double(n + 0.25));
  e.Set("flag", Value::Boolean(n % 2 == 1));
  e.Set("blob", Value::Binary(std::string("\0\xff", 2) + std::to_string(n)));
  e.Set("when", Value::DateTime(DateTime::FromUnixMicros(1'700'000'000'000'000 + n)));
  e.Set("id",
        Value::Guid(*Guid::Parse("c0ffee00-0000-4000-8000-00000000000" + std::to_string(n % 10))));
  e.Set("name", Value::String("row " + std::to_string(n)));
  return e;
}

// What a service error or transport failure's message must never hold.
void ExpectNoSecret(const Status& s) {
  EXPECT_THAT(std::string(s.message()), Not(HasSubstr(testing::kDevAccountKey)));
  EXPECT_THAT(std::string(s.message()), Not(HasSubstr("SharedKey")));
  EXPECT_THAT(std::string(s.message()), Not(HasSubstr("sig=")));
}

// A `partkv serve` shared by the tests (each uses a table of its own), a FaultProxy in front of
// it, a store through the proxy (store_, table_) and one without (direct_, the server's truth).
class RemoteFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = testing::SharedEndpoint(testing::EndpointKind::kPartkvServe, kPrograms);
    ASSERT_OK(server);
    server_ = *server;
    proxy_ = std::make_unique<FaultProxy>("127.0.0.1", static_cast<uint16_t>(server_->port()));
    name_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    if (name_.size() > 63) name_.resize(63);
    auto direct = Store::Open(server_->connection_string(), WithRemote(FastRetries()));
    ASSERT_OK(direct);
    direct_.emplace(std::move(*direct));
    Status created = direct_->CreateTable(name_);
    ASSERT_OK(created);
    auto table = direct_->OpenTable(name_);
    ASSERT_OK(table);
    direct_table_.emplace(std::move(*table));
    Connect(FastRetries());
  }

  void TearDown() override {
    if (direct_) EXPECT_OK(direct_->DropTable(name_));
  }

  // (Re)opens store_ and table_ through the proxy with `options`.
  void Connect(const RemoteOptions& options) {
    table_.reset();
    store_.reset();
    auto store = Store::Open(ConnectionString("http", proxy_->port()), WithRemote(options));
    ASSERT_OK(store);
    store_.emplace(std::move(*store));
    auto table = store_->OpenTable(name_);
    ASSERT_OK(table);
    table_.emplace(std::move(*table));
  }

  void AddRule(Fault fault, std::string method, std::string target_contains, int times = 1) {
    FaultProxy::Rule rule;
    rule.fault = fault;
    rule.method = std::move(method);
    rule.target_contains = std::move(target_contains);
    rule.times = times;
    proxy_->AddRule(std::move(rule));
  }
  // The proxy answers in the server's place, with Azure's error code.
  void AddAnswer(std::string method, std::string target_contains, int status,
                 std::string error_code, std::vector<std::pair<std::string, std::string>> headers,
                 int times = 1) {
    FaultProxy::Rule rule;
    rule.fault = Fault::kRespond;
    rule.method = std::move(method);
    rule.target_contains = std::move(target_contains);
    rule.times = times;
    rule.status = status;
    rule.headers = std::move(headers);
    rule.headers.emplace_back("x-ms-error-code", error_code);
    rule.headers.emplace_back("Content-Type", "application/json;odata=minimalmetadata");
    rule.body = R"({"odata.error":{"code":")" + error_code +
                R"(","message":{"lang":"en-US","value":"injected by the test's proxy"}}})";
    proxy_->AddRule(std::move(rule));
  }

  // The targets the proxy counts requests by.
  std::string TableTarget() const { return "/devstoreaccount1/" + name_; }
  std::string EntityTarget(std::string_view pk, std::string_view rk) const {
    return TableTarget() + "(PartitionKey='" + std::string(pk) + "',RowKey='" + std::string(rk) +
           "')";
  }
  static std::string BatchTarget() { return "/devstoreaccount1/$batch"; }
  // The first page of a query of partition `pk`, `top` rows a page.
  std::string PartitionQueryTarget(std::string_view pk, int top) const {
    return TableTarget() + "()?$top=" + std::to_string(top) + "&$filter=PartitionKey%20eq%20'" +
           std::string(pk) + "'";
  }

  int Received(std::string_view method, const std::string& target) const {
    return proxy_->Received(method, target);
  }
  int Forwarded(std::string_view method, const std::string& target) const {
    return proxy_->Forwarded(method, target);
  }

  // Every row the server holds in this test's table, "(pk,rk){…}" each, read without the proxy.
  std::string Stored() const {
    std::string out;
    Query q;
    do {
      auto page = direct_table_->QueryEntities(q);
      if (!page.ok()) return page.status().ToString();
      for (const Entity& e : page->entities) out += e.DebugString();
      q.continuation = page->continuation;
    } while (!q.continuation.empty());
    return out;
  }
  std::string StoredEtag(std::string_view pk, std::string_view rk) const {
    auto e = direct_table_->Get(pk, rk);
    return e.ok() ? e->etag() : e.status().ToString();
  }
  Result<WriteResult> InsertDirectly(const Entity& e) { return direct_table_->Insert(e); }

  testing::EndpointServer* server_ = nullptr;
  std::unique_ptr<FaultProxy> proxy_;
  std::string name_;
  std::optional<Store> direct_;
  std::optional<Table> direct_table_;
  std::optional<Store> store_;  // through the proxy
  std::optional<Table> table_;
};

// ---- A connection dropped before the request was forwarded: retried, applied once ----------

TEST_F(RemoteFaultsTest, DroppedInsertIsRetriedAndAppliedOnce) {
  AddRule(Fault::kDropBeforeForward, "POST", TableTarget());
  auto w = table_->Insert(Row("p", "r", 1));
  ASSERT_OK(w);
  EXPECT_EQ(w->etag, StoredEtag("p", "r"));
  EXPECT_EQ(Stored(), Row("p", "r", 1).DebugString());
  EXPECT_EQ(Received("POST", TableTarget()), 2);
  EXPECT_EQ(Forwarded("POST", TableTarget()), 1);
}

TEST_F(RemoteFaultsTest, DroppedReplaceIsRetriedAndAppliedOnce) {
  auto first = InsertDirectly(Row("p", "r", 1));
  ASSERT_OK(first);
  AddRule(Fault::kDropBeforeForward, "PUT", EntityTarget("p", "r"));
  auto w = table_->Replace(Row("p", "r", 2), IfMatch::ETag(first->etag));
  ASSERT_OK(w);
  EXPECT_EQ(w->etag, StoredEtag("p", "r"));
  EXPECT_EQ(Stored(), Row("p", "r", 2).DebugString());
  EXPECT_EQ(Received("PUT", EntityTarget("p", "r")), 2);
  EXPECT_EQ(Forwarded("PUT", EntityTarget("p", "r")), 1);
  // Applied by the retry itself: no read-back was needed.
  EXPECT_EQ(Received("GET", EntityTarget("p", "r")), 0);
}

TEST_F(RemoteFaultsTest, DroppedGetIsRetried) {
  ASSERT_OK(InsertDirectly(Row("p", "r", 1)));
  AddRule(Fault::kDropBeforeForward, "GET", EntityTarget("p", "r"));
  auto e = table_->Get("p", "r");
  ASSERT_OK(e);
  EXPECT_EQ(e->DebugString(), Row("p", "r", 1).DebugString());
  EXPECT_EQ(e->etag(), StoredEtag("p", "r"));
  EXPECT_EQ(Received("GET", EntityTarget("p", "r")), 2);
  EXPECT_EQ(Forwarded("GET", EntityTarget("p", "r")), 1);
}

// Reads partition `pk` of table_ page by page; the rows, "(pk,rk)" each, and the page count.
std::string ReadPartition(const Table& table, const std::string& pk, uint32_t page_size,
                          int* pages) {
  std::string rows;
  Query q;
  q.partition_key = pk;
  q.page_size = page_size;
  *pages = 0;
  do {
    auto page = table.QueryEntities(q);
    if (!page.ok()) return page.status().ToString();
    ++*pages;
    for (const Entity& e : page->entities) {
      rows += "(" + e.partition_key() + "," + e.row_key() + ")";
    }
    q.continuation = page->continuation;
  } while (!q.continuation.empty());
  return rows;
}

constexpr char kFiveRows[] = "(p,r0)(p,r1)(p,r2)(p,r3)(p,r4)";

TEST_F(RemoteFaultsTest, DroppedQueryPageIsRetried) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(InsertDirectly(Row("p", "r" + std::to_string(i), i)));
  }
  // The first page, then a continuation page, each dropped once.
  AddRule(Fault::kDropBeforeForward, "GET", PartitionQueryTarget("p", 2));
  AddRule(Fault::kDropBeforeForward, "GET", "NextPartitionKey");
  int pages = 0;
  EXPECT_EQ(ReadPartition(*table_, "p", 2, &pages), kFiveRows);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(Received("GET", PartitionQueryTarget("p", 2)), 2);
  EXPECT_EQ(Forwarded("GET", PartitionQueryTarget("p", 2)), 1);
}

TEST_F(RemoteFaultsTest, DroppedBatchIsRetriedAndAppliedOnce) {
  AddRule(Fault::kDropBeforeForward, "POST", BatchTarget());
  Batch b;
  b.Insert(Row("p", "a", 1)).Insert(Row("p", "b", 2)).Insert(Row("p", "c", 3));
  auto w = table_->Submit(b);
  ASSERT_OK(w);
  ASSERT_EQ(w->size(), 3u);
  EXPECT_EQ((*w)[0].etag, StoredEtag("p", "a"));
  EXPECT_EQ((*w)[2].etag, StoredEtag("p", "c"));
  EXPECT_EQ(Stored(), Row("p", "a", 1).DebugString() + Row("p", "b", 2).DebugString() +
                          Row("p", "c", 3).DebugString());
  EXPECT_EQ(Received("POST", BatchTarget()), 2);
  EXPECT_EQ(Forwarded("POST", BatchTarget()), 1);
}

// ---- A response lost after the write happened: the lost-write rule ---------------------------

TEST_F(RemoteFaultsTest, LostInsertResponseIsReportedDoneWithTheStoredEtag) {
  AddRule(Fault::kDropAfterForward, "POST", TableTarget());
  auto w = table_->Insert(Row("p", "r", 1));
  ASSERT_OK(w);
  EXPECT_EQ(w->etag, StoredEtag("p", "r"));
  EXPECT_EQ(Stored(), Row("p", "r", 1).DebugString());
  // Both attempts reached the server; the second met EntityAlreadyExists, and the entity was
  // read back once.
  EXPECT_EQ(Forwarded("POST", TableTarget()), 2);
  EXPECT_EQ(Received("GET", EntityTarget("p", "r")), 1);
}

TEST_F(RemoteFaultsTest, LostConditionalReplaceResponseIsReportedDone) {
  auto first = InsertDirectly(Row("p", "r", 1));
  ASSERT_OK(first);
  AddRule(Fault::kDropAfterForward, "PUT", EntityTarget("p", "r"));
  auto w = table_->Replace(Row("p", "r", 2), IfMatch::ETag(first->etag));
  ASSERT_OK(w);
  EXPECT_NE(w->etag, first->etag);
  EXPECT_EQ(w->etag, StoredEtag("p", "r"));
  EXPECT_EQ(Stored(), Row("p", "r", 2).DebugString());
  EXPECT_EQ(Forwarded("PUT", EntityTarget("p", "r")), 2);  // the retry met 412
  EXPECT_EQ(Received("GET", EntityTarget("p", "r")), 1);
}

TEST_F(RemoteFaultsTest, LostConditionalMergeResponseIsReportedDone) {
  auto first = InsertDirectly(Row("p", "r", 1));
  ASSERT_OK(first);
  Entity change("p", "r");
  change.Set("n", Value::Int32(5)).Set("added", Value::String("by merge"));
  AddRule(Fault::kDropAfterForward, "MERGE", EntityTarget("p", "r"));
  auto w = table_->Merge(change, IfMatch::ETag(first->etag));
  ASSERT_OK(w);
  EXPECT_EQ(w->etag, StoredEtag("p", "r"));
  Entity merged = Row("p", "r", 1);
  merged.Set("n", Value::Int32(5)).Set("added", Value::String("by merge"));
  EXPECT_EQ(Stored(), merged.DebugString());
  EXPECT_EQ(Forwarded("MERGE", EntityTarget("p", "r")), 2);
  EXPECT_EQ(Received("GET", EntityTarget("p", "r")), 1);
}

TEST_F(RemoteFaultsTest, LostDeleteResponseIsReportedDone) {
  auto first = InsertDirectly(Row("p", "r", 1));
  ASSERT_OK(first);
  AddRule(Fault::kDropAfterForward, "DELETE", EntityTarget("p", "r"));
  Status s = table_->Delete("p", "r", IfMatch::ETag(first->etag));
  EXPECT_OK(s);
  EXPECT_EQ(Stored(), "");
  EXPECT_EQ(Forwarded("DELETE", EntityTarget("p", "r")), 2);  // the retry met 404
}

TEST_F(RemoteFaultsTest, LostBatchResponseIsReportedDone) {
  AddRule(Fault::kDropAfterForward, "POST", BatchTarget());
  Batch b;
  b.Insert(Row("p", "a", 1)).Insert(Row("p", "b", 2)).Insert(Row("p", "c", 3));
  auto w = table_->Submit(b);
  ASSERT_OK(w);
  ASSERT_EQ(w->size(), 3u);
  EXPECT_EQ((*w)[0].etag, StoredEtag("p", "a"));
  EXPECT_EQ((*w)[1].etag, StoredEtag("p", "b"));
  EXPECT_EQ((*w)[2].etag, StoredEtag("p", "c"));
  EXPECT_EQ(Stored(), Row("p", "a", 1).DebugString() + Row("p", "b", 2).DebugString() +
                          Row("p", "c", 3).DebugString());
  EXPECT_EQ(Forwarded("POST", BatchTarget()), 2);  // the retry failed at operation 0
  for (const char* rk : {"a", "b", "c"}) EXPECT_EQ(Received("GET", EntityTarget("p", rk)), 1);
}

// A Double NaN travels as the string "NaN", which carries neither a sign nor a payload: the NaN a
// computation makes (0/0 on x86 sets the sign bit) reads back as another NaN, and is still what
// the write sent.
TEST_F(RemoteFaultsTest, LostWriteOfNotANumberIsReportedDone) {
  const double nan = std::copysign(std::numeric_limits<double>::quiet_NaN(), -1.0);
  Entity e = Row("p", "r", 1);
  e.Set("nan", Value::Double(nan));
  AddRule(Fault::kDropAfterForward, "POST", TableTarget());
  auto inserted = table_->Insert(e);
  ASSERT_OK(inserted);
  EXPECT_EQ(inserted->etag, StoredEtag("p", "r"));
  EXPECT_EQ(Forwarded("POST", TableTarget()), 2);

  Entity change("p", "r");
  change.Set("other", Value::Double(nan));
  AddRule(Fault::kDropAfterForward, "MERGE", EntityTarget("p", "r"));
  auto merged = table_->Merge(change, IfMatch::ETag(inserted->etag));
  ASSERT_OK(merged);
  EXPECT_EQ(merged->etag, StoredEtag("p", "r"));
  EXPECT_EQ(Forwarded("MERGE", EntityTarget("p", "r")), 2);
}

// A lost response whose row cannot be read back either: the write may have happened, so the
// outcome is an IOError saying so, not the retry's conflict (which would tell the caller the
// row is another writer's) and not a success.
TEST_F(RemoteFaultsTest, LostInsertWhoseReadBackFailsMayHaveBeenApplied) {
  AddRule(Fault::kDropAfterForward, "POST", TableTarget());
  AddRule(Fault::kDropBeforeForward, "GET", EntityTarget("p", "r"), 100);
  auto w = table_->Insert(Row("p", "r", 1));
  ASSERT_THAT(w, StatusIs(Status::Code::kIOError));
  EXPECT_THAT(std::string(w.status().message()), HasSubstr("may have been applied"));
  EXPECT_THAT(std::string(w.status().message()), HasSubstr("AlreadyExists"));
  EXPECT_THAT(std::string(w.status().message()), HasSubstr("reading ('p', 'r') back failed"));
  ExpectNoSecret(w.status());
  EXPECT_EQ(Stored(), Row("p", "r", 1).DebugString());  // it was applied, once
  EXPECT_EQ(Forwarded("POST", TableTarget()), 2);
  EXPECT_EQ(Received("GET", EntityTarget("p", "r")), 4);  // every attempt of the read-back
  EXPECT_EQ(Forwarded("GET", EntityTarget("p", "r")), 0);
}

TEST_F(RemoteFaultsTest, LostBatchWhoseReadBackFailsMayHaveBeenApplied) {
  AddRule(Fault::kDropAfterForward, "POST", BatchTarget());
  AddRule(Fault::kDropBeforeForward, "GET", EntityTarget("p", "b"), 100);
  Batch b;
  b.Insert(Row("p", "a", 1)).Insert(Row("p", "b", 2)).Insert(Row("p", "c", 3));
  auto w = table_->Submit(b);
  ASSERT_THAT(w, StatusIs(Status::Code::kIOError));
  EXPECT_THAT(std::string(w.status().message()), HasSubstr("may have been applied"));
  EXPECT_THAT(std::string(w.status().message()), HasSubstr("reading ('p', 'b') back failed"));
  EXPECT_EQ(Stored(), Row("p", "a", 1).DebugString() + Row("p", "b", 2).DebugString() +
                          Row("p", "c", 3).DebugString());
  EXPECT_EQ(Forwarded("POST", BatchTarget()), 2);
}

// The client cannot tell a first attempt that was lost from one that never arrived; either way,
// when the row holds another writer's content the retry's failure stands. Here the first
// attempt was answered 500 by the proxy without reaching the server, and the row was written by
// another client before.
TEST_F(RemoteFaultsTest, LostWriteRuleKeepsAlreadyExistsForAnotherWritersRow) {
  ASSERT_OK(InsertDirectly(Row("p", "r", 7)));
  AddAnswer("POST", TableTarget(), 500, "InternalError", {});
  auto w = table_->Insert(Row("p", "r", 1));
  EXPECT_THAT(w, StatusIs(Status::Code::kAlreadyExists));
  ExpectNoSecret(w.status());
  EXPECT_EQ(Stored(), Row("p", "r", 7).DebugString());
  EXPECT_EQ(Forwarded("POST", TableTarget()), 1);
  EXPECT_EQ(Received("GET", EntityTarget("p", "r")), 1);  // it was read back, and differed
}

// An Insert's row must hold what it sent and nothing more.
TEST_F(RemoteFaultsTest, LostWriteRuleKeepsAlreadyExistsForARowWithMoreProperties) {
  Entity more = Row("p", "r", 1);
  more.Set("extra", Value::String("another writer's"));
  ASSERT_OK(InsertDirectly(more));
  AddAnswer("POST", TableTarget(), 500, "InternalError", {});
  auto w = table_->Insert(Row("p", "r", 1));
  EXPECT_THAT(w, StatusIs(Status::Code::kAlreadyExists));
  EXPECT_EQ(Stored(), more.DebugString());
  EXPECT_EQ(Received("GET", EntityTarget("p", "r")), 1);
}

TEST_F(RemoteFaultsTest, LostWriteRuleKeepsPreconditionFailedForAnotherWritersReplace) {
  auto first = InsertDirectly(Row("p", "r", 1));
  ASSERT_OK(first);
  // Another writer replaces the row after we read its ETag.
  ASSERT_OK(direct_table_->Replace(Row("p", "r", 3), IfMatch::ETag(first->etag)));
  AddRule(Fault::kDropBeforeForward, "PUT", EntityTarget("p", "r"));
  auto w = table_->Replace(Row("p", "r", 2), IfMatch::ETag(first->etag));
  EXPECT_THAT(w, StatusIs(Status::Code::kPreconditionFailed));
  EXPECT_EQ(Stored(), Row("p", "r", 3).DebugString());
  EXPECT_EQ(Received("PUT", EntityTarget("p", "r")), 2);
  EXPECT_EQ(Forwarded("PUT", EntityTarget("p", "r")), 1);
  EXPECT_EQ(Received("GET", EntityTarget("p", "r")), 1);
}

// Every operation's row must hold what it wrote: one that does is not enough.
TEST_F(RemoteFaultsTest, LostWriteRuleKeepsABatchFailureUnlessEveryRowIsOurs) {
  ASSERT_OK(InsertDirectly(Row("p", "a", 7)));
  ASSERT_OK(InsertDirectly(Row("p", "b", 2)));
  AddRule(Fault::kDropBeforeForward, "POST", BatchTarget());
  Batch b;
  b.Insert(Row("p", "a", 1)).Insert(Row("p", "b", 2));
  auto w = table_->Submit(b);
  EXPECT_THAT(w, StatusIs(Status::Code::kAlreadyExists));
  EXPECT_EQ(w.status().failed_op(), 0);
  // The other writer's rows, unchanged: the batch wrote nothing.
  EXPECT_EQ(Stored(), Row("p", "a", 7).DebugString() + Row("p", "b", 2).DebugString());
  EXPECT_EQ(Forwarded("POST", BatchTarget()), 1);
  EXPECT_EQ(Received("GET", EntityTarget("p", "a")), 1);
}

// Without a failure that may have applied the write, a conflict is reported as it is, even for a
// row that holds exactly what the Insert sends: nothing is read back.
TEST_F(RemoteFaultsTest, PlainConflictIsNotReadBack) {
  ASSERT_OK(InsertDirectly(Row("p", "r", 1)));
  auto w = table_->Insert(Row("p", "r", 1));
  EXPECT_THAT(w, StatusIs(Status::Code::kAlreadyExists));
  EXPECT_EQ(Received("POST", TableTarget()), 1);
  EXPECT_EQ(Received("GET", EntityTarget("p", "r")), 0);
}

// The documented limit of the rule: a writer that stored the very same content between the
// attempts cannot be told from our own lost write.
TEST_F(RemoteFaultsTest, SameContentFromAnotherWriterCountsAsOurs) {
  ASSERT_OK(InsertDirectly(Row("p", "r", 1)));
  AddAnswer("POST", TableTarget(), 500, "InternalError", {});
  auto w = table_->Insert(Row("p", "r", 1));
  ASSERT_OK(w);
  EXPECT_EQ(w->etag, StoredEtag("p", "r"));
}

// 500 may mean the write was applied: the retry decides. Here it was not, and the retry applies
// it; the answer is the retry's own.
TEST_F(RemoteFaultsTest, InternalErrorNotForwardedIsRetriedAndAppliedOnce) {
  AddAnswer("POST", TableTarget(), 500, "InternalError", {});
  auto w = table_->Insert(Row("p", "r", 1));
  ASSERT_OK(w);
  EXPECT_EQ(w->etag, StoredEtag("p", "r"));
  EXPECT_EQ(Stored(), Row("p", "r", 1).DebugString());
  EXPECT_EQ(Received("POST", TableTarget()), 2);
  EXPECT_EQ(Forwarded("POST", TableTarget()), 1);
  EXPECT_EQ(Received("GET", EntityTarget("p", "r")), 0);  // no read-back: the retry succeeded
}

// A request the service refused as wrong is not sent again: it would be refused again.
TEST_F(RemoteFaultsTest, ClientErrorIsNotRetried) {
  AddAnswer("POST", TableTarget(), 400, "InvalidInput", {});
  auto w = table_->Insert(Row("p", "r", 1));
  EXPECT_THAT(w, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_THAT(std::string(w.status().message()), HasSubstr("InvalidInput"));
  EXPECT_EQ(Received("POST", TableTarget()), 1);
  EXPECT_EQ(Stored(), "");
}

// Azure's XML refusal of a signature echoes it, and the string it signed, in a detail element
// after the message: the Status keeps the code and the message's first line only.
TEST_F(RemoteFaultsTest, RefusedSignatureIsNotEchoedInTheMessage) {
  FaultProxy::Rule rule;
  rule.fault = Fault::kRespond;
  rule.method = "GET";
  rule.target_contains = EntityTarget("p", "r");
  rule.status = 403;
  rule.headers = {{"Content-Type", "application/xml"}};
  rule.body =
      "<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>AuthenticationFailed</Code>"
      "<Message>Server failed to authenticate the request. Make sure the value of Authorization "
      "header is formed correctly including the signature.\nRequestId:0f1e2d3c\n"
      "Time:2026-12-02T09:00:00.0000000Z</Message><AuthenticationErrorDetail>The MAC signature "
      "found in the HTTP request 'c2lnbmF0dXJlLWVjaG9lZA==' is not the same as any computed "
      "signature. Server used following string to sign: 'GET\n\n\nWed, 02 Dec 2026 09:00:00 "
      "GMT\n/devstoreaccount1/T'.</AuthenticationErrorDetail></Error>";
  proxy_->AddRule(rule);
  auto e = table_->Get("p", "r");
  EXPECT_THAT(e, StatusIs(Status::Code::kPermissionDenied));
  const std::string message(e.status().message());
  EXPECT_THAT(message, HasSubstr("AuthenticationFailed"));
  EXPECT_THAT(message, Not(HasSubstr("c2lnbmF0dXJlLWVjaG9lZA==")));
  EXPECT_THAT(message, Not(HasSubstr("string to sign")));
  EXPECT_THAT(message, Not(HasSubstr("RequestId")));
  ExpectNoSecret(e.status());
  EXPECT_EQ(Received("GET", EntityTarget("p", "r")), 1);  // a refusal is not retried
}

// ---- Throttling: the server's wait is honoured, the retries are bounded -----------------------

TEST_F(RemoteFaultsTest, ServerBusyRetryAfterIsWaitedFor) {
  AddAnswer("POST", TableTarget(), 503, "ServerBusy", {{"Retry-After", "1"}});
  const auto start = Clock::now();
  auto w = table_->Insert(Row("p", "r", 1));
  const auto elapsed = Since(start);
  ASSERT_OK(w);
  EXPECT_GE(elapsed, 1000ms);
  EXPECT_EQ(Stored(), Row("p", "r", 1).DebugString());
  EXPECT_EQ(Received("POST", TableTarget()), 2);
  EXPECT_EQ(Forwarded("POST", TableTarget()), 1);
  EXPECT_EQ(table_->Statistics().total.throttled, 1u);  // the 503 answered
  // The wait is counted, and is no longer than the call took.
  const uint64_t waited = table_->Statistics().total.retry_wait_micros;
  EXPECT_GE(waited, 1'000'000u);
  EXPECT_LE(waited, static_cast<uint64_t>(
                        std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count()));
}

TEST_F(RemoteFaultsTest, TooManyRequestsRetryAfterMsIsWaitedFor) {
  AddAnswer("GET", EntityTarget("p", "r"), 429, "TooManyRequests", {{"x-ms-retry-after-ms", "250"}},
            /*times=*/2);
  ASSERT_OK(InsertDirectly(Row("p", "r", 1)));
  const auto start = Clock::now();
  auto e = table_->Get("p", "r");
  const auto elapsed = Since(start);
  ASSERT_OK(e);
  EXPECT_EQ(e->DebugString(), Row("p", "r", 1).DebugString());
  EXPECT_GE(elapsed, 500ms);
  EXPECT_EQ(Received("GET", EntityTarget("p", "r")), 3);
  EXPECT_EQ(Forwarded("GET", EntityTarget("p", "r")), 1);
}

TEST_F(RemoteFaultsTest, ThrottlingBeyondMaxAttemptsIsThrottledWithTheServersWait) {
  RemoteOptions options = FastRetries();
  options.retry.max_attempts = 3;
  Connect(options);
  AddAnswer("POST", TableTarget(), 429, "TooManyRequests", {{"x-ms-retry-after-ms", "40"}},
            /*times=*/1000);
  auto w = table_->Insert(Row("p", "r", 1));
  EXPECT_THAT(w, StatusIs(Status::Code::kThrottled));
  EXPECT_EQ(w.status().retry_after(), 40ms);
  ExpectNoSecret(w.status());
  EXPECT_EQ(Received("POST", TableTarget()), 3);
  EXPECT_EQ(Forwarded("POST", TableTarget()), 0);
  EXPECT_EQ(Stored(), "");

  // 503 with Retry-After in seconds, likewise.
  options.retry.max_attempts = 2;
  Connect(options);
  AddAnswer("GET", EntityTarget("p", "q"), 503, "ServerBusy", {{"Retry-After", "1"}},
            /*times=*/1000);
  auto e = table_->Get("p", "q");
  EXPECT_THAT(e, StatusIs(Status::Code::kThrottled));
  EXPECT_EQ(e.status().retry_after(), 1000ms);
  EXPECT_THAT(std::string(e.status().message()), HasSubstr("ServerBusy"));
  EXPECT_EQ(Received("GET", EntityTarget("p", "q")), 2);
  EXPECT_EQ(Forwarded("GET", EntityTarget("p", "q")), 0);
}

TEST_F(RemoteFaultsTest, MaxTotalBoundsThrottledRetries) {
  RemoteOptions options = FastRetries();
  options.retry.max_attempts = 100;
  options.retry.max_total = 700ms;
  Connect(options);
  AddAnswer("POST", TableTarget(), 503, "ServerBusy", {{"x-ms-retry-after-ms", "200"}},
            /*times=*/1000);
  const auto start = Clock::now();
  auto w = table_->Insert(Row("p", "r", 1));
  const auto elapsed = Since(start);
  EXPECT_THAT(w, StatusIs(Status::Code::kThrottled));
  EXPECT_EQ(w.status().retry_after(), 200ms);
  // Each wait is at least 200 ms and none is begun that would end past max_total: attempts at
  // 0, ≥200, ≥400, ≥600 ms at most.
  const int attempts = Received("POST", TableTarget());
  EXPECT_GE(attempts, 2);
  EXPECT_LE(attempts, 4);
  EXPECT_GE(elapsed, (attempts - 1) * 200ms);
  EXPECT_EQ(Forwarded("POST", TableTarget()), 0);
}

// ---- Stalls past request_timeout ---------------------------------------------------------------

RemoteOptions ShortTimeout() {
  RemoteOptions options = FastRetries();
  options.request_timeout = 500ms;
  return options;
}

TEST_F(RemoteFaultsTest, StalledGetIsRetriedAfterTheRequestTimeout) {
  Connect(ShortTimeout());
  ASSERT_OK(InsertDirectly(Row("p", "r", 1)));
  AddRule(Fault::kStall, "GET", EntityTarget("p", "r"));
  const auto start = Clock::now();
  auto e = table_->Get("p", "r");
  const auto elapsed = Since(start);
  ASSERT_OK(e);
  EXPECT_EQ(e->DebugString(), Row("p", "r", 1).DebugString());
  EXPECT_GE(elapsed, 500ms);
  EXPECT_EQ(Received("GET", EntityTarget("p", "r")), 2);
}

TEST_F(RemoteFaultsTest, StallsBeyondMaxAttemptsAreIOErrorNamingTheTimeout) {
  RemoteOptions options = ShortTimeout();
  options.retry.max_attempts = 3;
  Connect(options);
  AddRule(Fault::kStall, "GET", EntityTarget("p", "r"), /*times=*/1000);
  auto e = table_->Get("p", "r");
  EXPECT_THAT(e, StatusIs(Status::Code::kIOError));
  EXPECT_THAT(std::string(e.status().message()), HasSubstr("timed out"));
  ExpectNoSecret(e.status());
  EXPECT_EQ(Received("GET", EntityTarget("p", "r")), 3);
}

// A write whose response stalls past the timeout was applied: the retry meets the row and the
// lost-write rule finds it ours.
TEST_F(RemoteFaultsTest, StalledInsertThatWasAppliedIsReportedDone) {
  Connect(ShortTimeout());
  AddRule(Fault::kStall, "POST", TableTarget());
  auto w = table_->Insert(Row("p", "r", 1));
  ASSERT_OK(w);
  EXPECT_EQ(w->etag, StoredEtag("p", "r"));
  EXPECT_EQ(Stored(), Row("p", "r", 1).DebugString());
  EXPECT_EQ(Forwarded("POST", TableTarget()), 2);
}

// ---- Truncated bodies ------------------------------------------------------------------------

TEST_F(RemoteFaultsTest, TruncatedGetIsRetried) {
  ASSERT_OK(InsertDirectly(Row("p", "r", 1)));
  FaultProxy::Rule rule;
  rule.fault = Fault::kTruncate;
  rule.method = "GET";
  rule.target_contains = EntityTarget("p", "r");
  rule.truncate_to = 20;
  proxy_->AddRule(rule);
  auto e = table_->Get("p", "r");
  ASSERT_OK(e);
  EXPECT_EQ(e->DebugString(), Row("p", "r", 1).DebugString());
  EXPECT_EQ(e->etag(), StoredEtag("p", "r"));
  EXPECT_EQ(Received("GET", EntityTarget("p", "r")), 2);
}

TEST_F(RemoteFaultsTest, TruncatedQueryPageIsRetried) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(InsertDirectly(Row("p", "r" + std::to_string(i), i)));
  }
  FaultProxy::Rule rule;
  rule.fault = Fault::kTruncate;
  rule.method = "GET";
  rule.target_contains = PartitionQueryTarget("p", 2);
  rule.truncate_to = 30;
  proxy_->AddRule(rule);
  rule.target_contains = "NextPartitionKey";
  rule.truncate_to = 200;  // within the first entity
  proxy_->AddRule(rule);
  int pages = 0;
  EXPECT_EQ(ReadPartition(*table_, "p", 2, &pages), kFiveRows);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(Received("GET", PartitionQueryTarget("p", 2)), 2);
}

// ---- Continuation tokens: refused as locally, before anything is sent ------------------------

class RemoteTokenTest : public RemoteFaultsTest {
 protected:
  void SetUp() override {
    RemoteFaultsTest::SetUp();
    if (HasFatalFailure()) return;
    for (int i = 0; i < 5; ++i) {
      ASSERT_OK(InsertDirectly(Row("p", "r" + std::to_string(i), i)));
    }
    query_.partition_key = "p";
    query_.page_size = 2;
    auto page = table_->QueryEntities(query_);
    ASSERT_OK(page);
    ASSERT_EQ(page->entities.size(), 2u);
    token_ = page->continuation;
    ASSERT_FALSE(token_.empty());
    // From here every continuation request that reaches the proxy is answered with an empty
    // page, OK: a refusal can only come from the client.
    FaultProxy::Rule rule;
    rule.fault = Fault::kRespond;
    rule.method = "GET";
    rule.target_contains = "NextPartitionKey";
    rule.times = 1000;
    rule.status = 200;
    rule.headers = {{"Content-Type", "application/json;odata=minimalmetadata"}};
    rule.body = R"({"value":[]})";
    proxy_->AddRule(rule);
  }

  void ExpectRefused(const Status& s) {
    EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
    EXPECT_THAT(std::string(s.message()), HasSubstr("continuation token"));
  }

  Query query_;
  std::string token_;
};

TEST_F(RemoteTokenTest, TamperedTokenIsRefused) {
  Query q = query_;
  q.continuation = token_;
  char& c = q.continuation[q.continuation.size() / 2];
  c = c == 'A' ? 'B' : 'A';
  ExpectRefused(table_->QueryEntities(q).status());
}

TEST_F(RemoteTokenTest, TokenFromOtherQueryIsRefused) {
  Query q = query_;
  q.filter = "n ge 0";
  q.continuation = token_;
  ExpectRefused(table_->QueryEntities(q).status());
}

TEST_F(RemoteTokenTest, TokenFromOtherTableIsRefused) {
  const std::string other = name_.substr(0, 58) + "Other";
  ASSERT_OK(direct_->CreateTable(other));
  auto table = store_->OpenTable(other);
  ASSERT_OK(table);
  Query q = query_;
  q.continuation = token_;
  ExpectRefused(table->QueryEntities(q).status());
  EXPECT_OK(direct_->DropTable(other));
}

TEST_F(RemoteTokenTest, TokenFromStoreWithOtherAccountKeyIsRefused) {
  // A store of the same account at the same endpoint with another key: its tokens are sealed
  // with another secret. The server does not know that key and refuses what it signs, once (a
  // refusal is not retried), without the key in the message.
  const std::string other_key(88, 'A');  // 64 zero bytes, base64
  auto other =
      Store::Open(ConnectionString("http", proxy_->port(), other_key), WithRemote(FastRetries()));
  ASSERT_OK(other);
  const std::string table_target = "/devstoreaccount1/Tables('" + name_ + "')";
  const int opened = Received("GET", table_target);
  auto refused = other->OpenTable(name_);
  EXPECT_THAT(refused, StatusIs(Status::Code::kPermissionDenied));
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("AuthenticationFailed"));
  EXPECT_THAT(std::string(refused.status().message()), Not(HasSubstr(other_key)));
  ExpectNoSecret(refused.status());
  EXPECT_EQ(Received("GET", table_target), opened + 1);

  // The proxy opens the table for it in the server's place; the token is then refused by the
  // client itself (a continuation request sent would come back OK, see SetUp).
  FaultProxy::Rule open;
  open.fault = Fault::kRespond;
  open.method = "GET";
  open.target_contains = table_target;
  open.status = 200;
  open.headers = {{"Content-Type", "application/json;odata=minimalmetadata"}};
  open.body = R"({"TableName":")" + name_ + R"("})";
  proxy_->AddRule(open);
  auto table = other->OpenTable(name_);
  ASSERT_OK(table);
  Query q = query_;
  q.continuation = token_;
  ExpectRefused(table->QueryEntities(q).status());
}

// The refusals above were the client's: the token as it was given is sent.
TEST_F(RemoteTokenTest, TokenAsGivenReachesTheService) {
  Query q = query_;
  q.continuation = token_;
  auto page = table_->QueryEntities(q);
  ASSERT_OK(page);
  EXPECT_TRUE(page->entities.empty());  // the proxy's empty page: the request was sent
}

// ---- HTTPS, against Azurite ------------------------------------------------------------------

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// Relays TCP connections from 127.0.0.1:port() to 127.0.0.1:upstream_port byte for byte and
// counts them: how many connections an HTTPS client opened, which FaultProxy (HTTP only) cannot
// see. Its own thread; connections() may be read from any thread.
class TcpRelay {
 public:
  explicit TcpRelay(uint16_t upstream_port)
      : acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)),
        upstream_(asio::ip::make_address("127.0.0.1"), upstream_port),
        port_(acceptor_.local_endpoint().port()) {
    asio::co_spawn(io_, Accept(), asio::detached);
    thread_ = std::thread([this] { io_.run(); });
  }
  ~TcpRelay() {
    io_.stop();
    thread_.join();
  }
  TcpRelay(const TcpRelay&) = delete;
  TcpRelay& operator=(const TcpRelay&) = delete;

  uint16_t port() const { return port_; }
  int connections() const { return connections_.load(); }

 private:
  using Socket = std::shared_ptr<tcp::socket>;
  static auto Await(boost::system::error_code& ec) {
    return asio::redirect_error(asio::use_awaitable, ec);
  }

  asio::awaitable<void> Accept() {
    for (;;) {
      boost::system::error_code ec;
      tcp::socket client = co_await acceptor_.async_accept(Await(ec));
      if (ec) co_return;
      ++connections_;
      asio::co_spawn(io_, Relay(std::make_shared<tcp::socket>(std::move(client))), asio::detached);
    }
  }

  asio::awaitable<void> Relay(Socket client) {
    auto upstream = std::make_shared<tcp::socket>(io_);
    boost::system::error_code ec;
    co_await upstream->async_connect(upstream_, Await(ec));
    if (ec) co_return;
    asio::co_spawn(io_, Pipe(upstream, client), asio::detached);
    co_await Pipe(client, upstream);
  }

  static asio::awaitable<void> Pipe(Socket from, Socket to) {
    std::array<char, 16384> buffer;
    for (;;) {
      boost::system::error_code ec;
      size_t n = co_await from->async_read_some(asio::buffer(buffer), Await(ec));
      if (ec) break;
      co_await asio::async_write(*to, asio::buffer(buffer.data(), n), Await(ec));
      if (ec) break;
    }
    boost::system::error_code ignored;
    to->shutdown(tcp::socket::shutdown_send, ignored);
  }

  asio::io_context io_{1};
  tcp::acceptor acceptor_;
  tcp::endpoint upstream_;
  uint16_t port_;
  std::atomic<int> connections_{0};
  std::thread thread_;
};

// Writes a self-signed certificate for a CA that signed nothing else to `path`.
bool WriteUnrelatedCa(const std::string& path) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  bool ok = key != nullptr && cert != nullptr;
  ok = ok && ASN1_INTEGER_set(X509_get_serialNumber(cert), 1) == 1;
  ok = ok && X509_gmtime_adj(X509_getm_notBefore(cert), 0) != nullptr;
  ok = ok && X509_gmtime_adj(X509_getm_notAfter(cert), 7 * 24 * 3600) != nullptr;
  ok = ok && X509_set_pubkey(cert, key) == 1;
  X509_NAME* name = ok ? X509_get_subject_name(cert) : nullptr;
  ok = ok &&
       X509_NAME_add_entry_by_txt(
           name, "CN", MBSTRING_ASC,
           reinterpret_cast<const unsigned char*>("partkv test, an unrelated CA"), -1, -1, 0) == 1;
  ok = ok && X509_set_issuer_name(cert, name) == 1;
  ok = ok && X509_sign(cert, key, EVP_sha256()) > 0;
  std::FILE* file = ok ? std::fopen(path.c_str(), "wb") : nullptr;
  ok = file != nullptr && PEM_write_X509(file, cert) == 1;
  if (file != nullptr) ok = std::fclose(file) == 0 && ok;
  X509_free(cert);
  EVP_PKEY_free(key);
  return ok;
}

// Azurite over HTTPS with a certificate of its own CA (tests/testing/endpoint_server.h), reached
// through a TcpRelay.
class RemoteHttpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = testing::SharedEndpoint(testing::EndpointKind::kAzuriteHttps, kPrograms);
    ASSERT_OK(server);
    server_ = *server;
    relay_ = std::make_unique<TcpRelay>(static_cast<uint16_t>(server_->port()));
  }

  Result<Store> Open(const std::string& ca_file) {
    RemoteOptions options = FastRetries();
    options.ca_file = ca_file;
    return Store::Open(ConnectionString("https", relay_->port()), WithRemote(options));
  }

  // A store that does not trust the server's certificate: its first call fails as TLS, from its
  // first connection (a retry would fail the same way).
  void ExpectTlsFailureAtOnce(const std::string& ca_file) {
    auto store = Open(ca_file);
    ASSERT_OK(store);
    const auto start = Clock::now();
    auto tables = store->ListTables();
    const auto elapsed = Since(start);
    ASSERT_THAT(tables, StatusIs(Status::Code::kIOError));
    const Status& s = tables.status();
    EXPECT_THAT(std::string(s.message()), HasSubstr("TLS"));
    ExpectNoSecret(s);
    EXPECT_EQ(relay_->connections(), 1) << s.ToString();
    std::printf("[ timing ] TLS failure reported after %lld ms: %s\n",
                static_cast<long long>(elapsed.count()), s.ToString().c_str());
  }

  testing::EndpointServer* server_ = nullptr;
  std::unique_ptr<TcpRelay> relay_;
};

TEST_F(RemoteHttpsTest, StoreTrustingTheServersCaWorks) {
  auto store = Open(server_->ca_file());
  ASSERT_OK(store);
  Status created = store->CreateTable("HttpsRoundTrip");
  ASSERT_OK(created);
  auto table = store->OpenTable("HttpsRoundTrip");
  ASSERT_OK(table);
  auto w = table->Insert(Row("p", "r", 1));
  ASSERT_OK(w);
  auto e = table->Get("p", "r");
  ASSERT_OK(e);
  EXPECT_EQ(e->DebugString(), Row("p", "r", 1).DebugString());
  EXPECT_EQ(e->etag(), w->etag);
  int pages = 0;
  EXPECT_EQ(ReadPartition(*table, "p", 10, &pages), "(p,r)");
  EXPECT_GE(relay_->connections(), 1);
  EXPECT_OK(store->DropTable("HttpsRoundTrip"));
}

TEST_F(RemoteHttpsTest, CertificateOfAnotherCaFailsAtOnceNamingTls) {
  testing::TempDir dir;
  const std::string other_ca = dir.Sub("other-ca.pem");
  ASSERT_TRUE(WriteUnrelatedCa(other_ca));
  ExpectTlsFailureAtOnce(other_ca);
}

TEST_F(RemoteHttpsTest, CertificateUnknownToTheSystemStoreFailsAtOnceNamingTls) {
  ExpectTlsFailureAtOnce("");
}

}  // namespace
}  // namespace partkv
