// partkv::SyncTable (partkv/sync.h), in-process, between a local store and `partkv serve` with a
// FaultProxy (tests/testing/fault_proxy.h) in front of the server: batch responses lost after
// the server applied them, storms of 503 ServerBusy with a short retry-after, connections reset
// before the request reached the server, query pages truncated or lost during the pull. The sync
// finishes — or stops with an error, and the next one finishes — with the remote holding exactly
// the local entities (nothing lost, nothing doubled) and no conflict: a write whose answer was
// lost is settled by the remote client's lost-write rule (docs/remote.md) or, re-sent by the
// next sync, adopted (docs/sync.md "Push"). The proxy's counts show the faults were met.
//
// The remote store's retries are the defaults (at most 6 attempts) with shorter waits (10 ms
// doubling to 100 ms), so that the tests stay short.

#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "partkv/partkv.h"
#include "tests/testing/endpoint_server.h"
#include "tests/testing/fault_proxy.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/tools/copy/copy_test_support.h"
#include "tests/tools/sync/sync_test_support.h"

namespace partkv {
namespace {

using testing::EntityMap;
using testing::FaultProxy;
using Fault = FaultProxy::Fault;

const testing::ServerPrograms kPrograms{PARTKV_CLI_PATH, PARTKV_AZURITE_DIR};

constexpr int kRows = 2000;
constexpr int kPartitionKeys = 80;  // 25 rows each: one batch each
constexpr const char* kLocalTable = "Items";

Entity Row(int i, const std::string& version) {
  char pk[16], rk[16];
  std::snprintf(pk, sizeof pk, "p%03d", i % kPartitionKeys);
  std::snprintf(rk, sizeof rk, "r%05d", i);
  Entity e(pk, rk);
  e.Set("Text", Value::String("row " + std::to_string(i) + " synced through faults, " + version));
  e.Set("N", Value::Int64(i));
  return e;
}

// Writes the kRows rows, version `version`, in batches of one PartitionKey.
Status Fill(Table& table, const std::string& version) {
  for (int pk = 0; pk < kPartitionKeys; ++pk) {
    Batch batch;
    for (int i = pk; i < kRows; i += kPartitionKeys) batch.InsertOrReplace(Row(i, version));
    PARTKV_RETURN_IF_ERROR(table.Submit(batch).status());
  }
  return Status::OK();
}

// A `partkv serve` shared by the tests (each syncs with a remote table named after itself), a
// FaultProxy in front of it, and a local store of the test's own whose table Items keeps a change
// feed.
class SyncFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = testing::SharedEndpoint(testing::EndpointKind::kPartkvServe, kPrograms);
    ASSERT_OK(server);
    server_ = *server;
    proxy_ = std::make_unique<FaultProxy>("127.0.0.1", static_cast<uint16_t>(server_->port()));
    for (char c : std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())) {
      if (std::isalnum(static_cast<unsigned char>(c)) && name_.size() < 60) name_ += c;
    }
    auto direct = Store::Open(server_->connection_string());
    ASSERT_OK(direct);
    direct_.emplace(std::move(*direct));
    ASSERT_OK(direct_->CreateTable(name_));
    StoreOptions proxied_options;
    proxied_options.remote.retry.initial_backoff = std::chrono::milliseconds(10);
    proxied_options.remote.retry.max_backoff = std::chrono::milliseconds(100);
    auto proxied = Store::Open(testing::LoopbackConnectionString(proxy_->port()), proxied_options);
    ASSERT_OK(proxied);
    proxied_.emplace(std::move(*proxied));
    auto local = Store::Open(dir_.Sub("local"), StoreOptions{});
    ASSERT_OK(local);
    local_.emplace(std::move(*local));
    TableOptions options;
    options.change_feed.enabled = true;
    ASSERT_OK(local_->CreateTable(kLocalTable, options));
  }

  Table LocalTable() {
    auto t = local_->OpenTable(kLocalTable);
    EXPECT_OK(t);
    return std::move(*t);
  }
  Table RemoteTable() {
    auto t = direct_->OpenTable(name_);
    EXPECT_OK(t);
    return std::move(*t);
  }

  // One sync through the proxy; its report (the sync must have started).
  SyncReport Sync(size_t max_batches_in_flight = 4) {
    SyncOptions options;
    options.max_batches_in_flight = max_batches_in_flight;
    auto report = SyncTable(*local_, kLocalTable, *proxied_, name_, options);
    EXPECT_OK(report);
    if (!report.ok()) {
      SyncReport failed;
      failed.error = report.status();
      return failed;
    }
    std::printf(
        "[sync faults] pushed %llu (+%llu deletes), skipped %llu, adopted %llu, pulled %llu, "
        "unchanged %llu, conflicts %llu, %llu requests: %s\n",
        static_cast<unsigned long long>(report->pushed),
        static_cast<unsigned long long>(report->pushed_deletes),
        static_cast<unsigned long long>(report->push_skipped),
        static_cast<unsigned long long>(report->adopted),
        static_cast<unsigned long long>(report->pulled),
        static_cast<unsigned long long>(report->pull_unchanged),
        static_cast<unsigned long long>(report->conflicts),
        static_cast<unsigned long long>(report->remote_requests), report->error.ToString().c_str());
    return std::move(*report);
  }

  // The local table and the remote one (read without the proxy) hold the same `rows` entities.
  void ExpectSame(size_t rows = kRows) {
    auto local = testing::ReadAll(*local_, kLocalTable);
    ASSERT_OK(local);
    auto remote = testing::ReadAll(*direct_, name_);
    ASSERT_OK(remote);
    EXPECT_EQ(local->size(), rows);
    EXPECT_EQ(remote->size(), rows);
    EXPECT_EQ(testing::Differences(*local, "local", *remote, "remote"), "");
  }

  void AddRule(Fault fault, std::string method, std::string target_contains, int times) {
    FaultProxy::Rule rule;
    rule.fault = fault;
    rule.method = std::move(method);
    rule.target_contains = std::move(target_contains);
    rule.times = times;
    proxy_->AddRule(std::move(rule));
  }
  // 503 ServerBusy in the server's place, asking for a retry after 5 ms.
  void AddBusy(std::string method, std::string target_contains, int times) {
    FaultProxy::Rule rule;
    rule.fault = Fault::kRespond;
    rule.method = std::move(method);
    rule.target_contains = std::move(target_contains);
    rule.times = times;
    rule.status = 503;
    rule.headers = {{"x-ms-retry-after-ms", "5"},
                    {"Retry-After", "0"},
                    {"x-ms-error-code", "ServerBusy"},
                    {"Content-Type", "application/json;odata=minimalmetadata"}};
    rule.body = R"({"odata.error":{"code":"ServerBusy","message":{"lang":"en-US",)"
                R"("value":"injected by the test's proxy"}}})";
    proxy_->AddRule(std::move(rule));
  }

  static std::string BatchTarget() { return "/devstoreaccount1/$batch"; }
  // Every query of the remote table (its first page and its continuations; not a single Get,
  // whose target is name(PartitionKey=...)).
  std::string QueryTargets() const { return "/devstoreaccount1/" + name_ + "()"; }
  // The first page of the first pull (no filter yet).
  std::string FirstPullPage() const { return "/devstoreaccount1/" + name_ + "()?$top=1000"; }

  testing::TempDir dir_;
  testing::EndpointServer* server_ = nullptr;
  std::unique_ptr<FaultProxy> proxy_;
  std::string name_;
  std::optional<Store> direct_, proxied_, local_;
};

// (i) Lost answers of batches the server applied, mid-push. A few: the remote client's retry
// meets the rows in place and its lost-write rule settles them (pushed). As many as the client's
// attempts for one batch: the sync stops; the next one re-sends that batch, which the server
// refuses (the rows are there), and adopts its rows one by one. Never a conflict.
TEST_F(SyncFaultsTest, LostBatchResponsesAreSettledOrAdoptedNotConflicts) {
  Table local = LocalTable();
  ASSERT_OK(Fill(local, "v1"));

  // The first sync (a seed: Inserts) loses three answers.
  AddRule(Fault::kDropAfterForward, "POST", BatchTarget(), 3);
  SyncReport first = Sync();
  ASSERT_OK(first.error);
  EXPECT_TRUE(first.seeded);
  EXPECT_EQ(first.pushed + first.adopted, static_cast<uint64_t>(kRows));
  EXPECT_EQ(first.conflicts, 0u);
  EXPECT_EQ(first.set_aside, 0u);
  EXPECT_EQ(proxy_->Received("POST", BatchTarget()), kPartitionKeys + 3);
  EXPECT_EQ(proxy_->Forwarded("POST", BatchTarget()), kPartitionKeys + 3);
  ASSERT_NO_FATAL_FAILURE(ExpectSame());

  // Every row replaced; the first batch sent (one batch in flight) loses the answer of each of
  // the client's 6 attempts: the first applied it, the others were refused (412) unseen.
  ASSERT_OK(Fill(local, "v2"));
  AddRule(Fault::kDropAfterForward, "POST", BatchTarget(), 6);
  SyncReport stopped = Sync(/*max_batches_in_flight=*/1);
  EXPECT_FALSE(stopped.error.ok()) << "six lost answers in a row did not stop the sync";
  EXPECT_EQ(stopped.conflicts, 0u);
  EXPECT_EQ(proxy_->Received("POST", BatchTarget()), kPartitionKeys + 3 + 6);
  SyncReport next = Sync();
  ASSERT_OK(next.error);
  EXPECT_EQ(next.conflicts, 0u);
  EXPECT_EQ(next.set_aside, 0u);
  if (!stopped.error.ok()) {
    // The batch applied without an answer: its 25 rows found in place.
    EXPECT_EQ(next.adopted, static_cast<uint64_t>(kRows / kPartitionKeys));
  }
  EXPECT_EQ(stopped.pushed + next.pushed + next.adopted, static_cast<uint64_t>(kRows));
  ASSERT_NO_FATAL_FAILURE(ExpectSame());
  auto remote = testing::ReadAll(*direct_, name_);
  ASSERT_OK(remote);
  for (const auto& [key, e] : *remote) {
    const Value* text = e.Get("Text");
    ASSERT_NE(text, nullptr);
    ASSERT_NE(std::string(text->as_string()).find("v2"), std::string::npos) << e.DebugString();
  }

  // Nothing left to do: a sync sends no batch.
  const int batches = proxy_->Received("POST", BatchTarget());
  SyncReport idle = Sync();
  ASSERT_OK(idle.error);
  EXPECT_EQ(idle.pushed + idle.adopted + idle.pulled + idle.conflicts, 0u);
  EXPECT_EQ(proxy_->Received("POST", BatchTarget()), batches);
}

// (ii) Storms of 503 ServerBusy on the push's batches and the pull's queries: waited out.
TEST_F(SyncFaultsTest, ServerBusyStormsAreWaitedOut) {
  Table local = LocalTable();
  ASSERT_OK(Fill(local, "v1"));
  AddBusy("POST", BatchTarget(), 15);
  AddBusy("GET", QueryTargets(), 4);
  SyncReport report = Sync();
  ASSERT_OK(report.error);
  EXPECT_EQ(report.pushed, static_cast<uint64_t>(kRows));
  EXPECT_EQ(report.adopted, 0u);
  EXPECT_EQ(report.conflicts, 0u);
  EXPECT_EQ(proxy_->Received("POST", BatchTarget()), kPartitionKeys + 15);
  EXPECT_EQ(proxy_->Forwarded("POST", BatchTarget()), kPartitionKeys);
  EXPECT_EQ(proxy_->Received("GET", FirstPullPage()), 1 + 4);
  EXPECT_EQ(proxy_->Forwarded("GET", FirstPullPage()), 1);
  ASSERT_NO_FATAL_FAILURE(ExpectSame());

  // A second storm on the replaces of every row.
  ASSERT_OK(Fill(local, "v2"));
  AddBusy("POST", BatchTarget(), 15);
  report = Sync();
  ASSERT_OK(report.error);
  EXPECT_EQ(report.pushed, static_cast<uint64_t>(kRows));
  EXPECT_EQ(report.conflicts, 0u);
  EXPECT_EQ(proxy_->Received("POST", BatchTarget()), 2 * kPartitionKeys + 30);
  EXPECT_EQ(proxy_->Forwarded("POST", BatchTarget()), 2 * kPartitionKeys);
  ASSERT_NO_FATAL_FAILURE(ExpectSame());
}

// (iii) Connections reset before the request reached the server: retried, each write applied
// once.
TEST_F(SyncFaultsTest, ConnectionsResetBeforeForwardingAreRetried) {
  Table local = LocalTable();
  ASSERT_OK(Fill(local, "v1"));
  AddRule(Fault::kDropBeforeForward, "POST", BatchTarget(), 5);
  AddRule(Fault::kDropBeforeForward, "GET", QueryTargets(), 3);
  SyncReport report = Sync();
  ASSERT_OK(report.error);
  EXPECT_EQ(report.pushed, static_cast<uint64_t>(kRows));
  EXPECT_EQ(report.adopted, 0u);
  EXPECT_EQ(report.conflicts, 0u);
  EXPECT_EQ(proxy_->Received("POST", BatchTarget()), kPartitionKeys + 5);
  EXPECT_EQ(proxy_->Forwarded("POST", BatchTarget()), kPartitionKeys);
  EXPECT_EQ(proxy_->Received("GET", FirstPullPage()), 1 + 3);
  EXPECT_EQ(proxy_->Forwarded("GET", FirstPullPage()), 1);
  ASSERT_NO_FATAL_FAILURE(ExpectSame());

  // Deletes of a fifth of the rows, reset too.
  for (int i = 0; i < kRows; i += 5) {
    const Entity e = Row(i, "");
    ASSERT_OK(local.Delete(e.partition_key(), e.row_key(), IfMatch::Any()));
  }
  AddRule(Fault::kDropBeforeForward, "POST", BatchTarget(), 5);
  report = Sync();
  ASSERT_OK(report.error);
  EXPECT_EQ(report.pushed_deletes, static_cast<uint64_t>(kRows / 5));
  EXPECT_EQ(report.conflicts, 0u);
  // Rows 0, 5, 10, ...: those of the 16 PartitionKeys p000, p005, ..., p075, all 25 of each.
  constexpr int kDeleteBatches = kPartitionKeys / 5;
  EXPECT_EQ(proxy_->Received("POST", BatchTarget()), kPartitionKeys + kDeleteBatches + 10);
  EXPECT_EQ(proxy_->Forwarded("POST", BatchTarget()), kPartitionKeys + kDeleteBatches);
  ASSERT_NO_FATAL_FAILURE(ExpectSame(kRows - kRows / 5));
}

// (iv) The pull's query pages truncated or lost: retried and read whole; lost on every attempt,
// the pull stops without moving its mark, and the next sync pulls the rest. Nothing lost, nothing
// doubled.
TEST_F(SyncFaultsTest, TruncatedOrLostQueryPagesDuringThePull) {
  Table remote = RemoteTable();
  ASSERT_OK(Fill(remote, "remote"));
  FaultProxy::Rule truncate;
  truncate.fault = Fault::kTruncate;
  truncate.method = "GET";
  truncate.target_contains = FirstPullPage();
  truncate.truncate_to = 100;
  proxy_->AddRule(truncate);
  // The second page (a continuation: its target names the next keys) lost after the server read it.
  AddRule(Fault::kDropAfterForward, "GET", "NextPartitionKey=", 1);
  SyncReport report = Sync();
  ASSERT_OK(report.error);
  EXPECT_EQ(report.pulled, static_cast<uint64_t>(kRows));
  EXPECT_EQ(report.conflicts, 0u);
  EXPECT_EQ(proxy_->Received("GET", FirstPullPage()), 2);
  EXPECT_EQ(proxy_->Forwarded("GET", FirstPullPage()), 2);
  ASSERT_NO_FATAL_FAILURE(ExpectSame());

  // Every remote row replaced; the pull's pages (filtered by Timestamp now) then fail on every
  // attempt after the first page: the sync stops after pulling part of the rows.
  ASSERT_OK(Fill(remote, "remote v2"));
  const int connections = proxy_->connections();
  AddRule(Fault::kForward, "GET", QueryTargets(), 1);
  AddRule(Fault::kDropBeforeForward, "GET", QueryTargets(), 6);
  SyncReport stopped = Sync();
  EXPECT_FALSE(stopped.error.ok()) << "a page lost on every attempt did not stop the pull";
  EXPECT_GT(proxy_->connections(), connections);
  EXPECT_LE(stopped.pulled, static_cast<uint64_t>(kRows));
  EXPECT_EQ(stopped.conflicts, 0u);
  SyncReport next = Sync();
  ASSERT_OK(next.error);
  EXPECT_EQ(next.conflicts, 0u);
  // The rows pulled before the stop are read again, unchanged; the rest pulled now.
  EXPECT_EQ(stopped.pulled + next.pulled, static_cast<uint64_t>(kRows));
  ASSERT_NO_FATAL_FAILURE(ExpectSame());
  auto local_rows = testing::ReadAll(*local_, kLocalTable);
  ASSERT_OK(local_rows);
  for (const auto& [key, e] : *local_rows) {
    const Value* text = e.Get("Text");
    ASSERT_NE(text, nullptr);
    ASSERT_NE(std::string(text->as_string()).find("remote v2"), std::string::npos)
        << e.DebugString();
  }
  // The pulled rows are the sync's own: the next push sends none of them back.
  const int batches = proxy_->Received("POST", BatchTarget());
  SyncReport idle = Sync();
  ASSERT_OK(idle.error);
  EXPECT_EQ(idle.pushed + idle.pulled + idle.conflicts, 0u);
  EXPECT_EQ(proxy_->Received("POST", BatchTarget()), batches);
}

}  // namespace
}  // namespace partkv
