// `partkv copy --mode insert` between a local store and `partkv serve` with a FaultProxy
// (tests/testing/fault_proxy.h) between the command and the server, both ways: batch responses
// lost after the server applied them, storms of 503 ServerBusy with a short retry-after,
// connections reset before the request reached the server, a response held for less than the
// client's request_timeout, truncated query pages. The copy finishes — or stops with an error
// naming the checkpoint to resume from, and --resume finishes it — with nothing lost and nothing
// doubled: --verify-only (run straight against the server) is clean and the destination holds
// as many rows as the source. The proxy's counts show the faults were met, and what the remote
// store's retries and its lost-write rule (docs/remote.md) made of them.
//
// The command uses the remote store's default RemoteOptions (no setting shortens them): retries
// wait 100 ms, doubling, at most 6 attempts; request_timeout is 30 s. The faults are chosen so
// that the waits stay short.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "partkv/partkv.h"
#include "tests/testing/endpoint_server.h"
#include "tests/testing/fault_proxy.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/tools/copy/copy_test_support.h"

namespace partkv {
namespace {

using testing::FaultProxy;
using ::testing::HasSubstr;
using testing::KilledRun;
using ::testing::Not;
using Fault = FaultProxy::Fault;

const testing::ServerPrograms kPrograms{PARTKV_CLI_PATH, PARTKV_AZURITE_DIR};

constexpr int kRows = 2000;
constexpr int kPartitionKeys = 80;  // 25 rows each: one batch each

Entity Row(int i, int partition_keys) {
  char pk[16], rk[16];
  std::snprintf(pk, sizeof pk, "p%03d", i % partition_keys);
  std::snprintf(rk, sizeof rk, "r%05d", i);
  Entity e(pk, rk);
  e.Set("Text", Value::String("row " + std::to_string(i) + " copied through faults"));
  e.Set("N", Value::Int64(i));
  return e;
}

Status Fill(Table& table, int rows, int partition_keys) {
  PARTKV_ASSIGN_OR_RETURN(BulkWriter writer, BulkWriter::Create(table));
  for (int i = 0; i < rows; ++i) PARTKV_RETURN_IF_ERROR(writer.Add(Row(i, partition_keys)));
  return writer.Finish();
}

// A `partkv serve` shared by the tests (each uses tables named after itself), a FaultProxy in
// front of it, and a local store of the test's own.
class CopyFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = testing::SharedEndpoint(testing::EndpointKind::kPartkvServe, kPrograms);
    ASSERT_OK(server);
    server_ = *server;
    proxy_ = std::make_unique<FaultProxy>("127.0.0.1", static_cast<uint16_t>(server_->port()));
    for (char c : std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())) {
      if (std::isalnum(static_cast<unsigned char>(c)) && name_.size() < 60) name_ += c;
    }
    direct_ = server_->connection_string();
    proxied_ = testing::LoopbackConnectionString(proxy_->port());
    local_ = dir_.Sub("local");
    checkpoint_ = dir_.Sub("copy.checkpoint");
  }

  // The local store's table Src: `rows` rows over `partition_keys` PartitionKeys.
  void MakeLocalSource(int rows = kRows, int partition_keys = kPartitionKeys,
                       uint32_t physical_partitions = 16) {
    StoreOptions options;
    auto store = Store::Open(local_, options);
    ASSERT_OK(store);
    TableOptions table_options;
    table_options.physical_partitions = physical_partitions;
    ASSERT_OK(store->CreateTable("Src", table_options));
    auto table = store->OpenTable("Src");
    ASSERT_OK(table);
    ASSERT_OK(Fill(*table, rows, partition_keys));
  }

  // The server's table name_, filled without the proxy.
  void MakeRemoteSource(int rows = kRows, int partition_keys = kPartitionKeys) {
    auto store = Store::Open(direct_);
    ASSERT_OK(store);
    Status created = store->CreateTable(name_);
    ASSERT_TRUE(created.ok() || created.IsAlreadyExists()) << created.ToString();
    auto table = store->OpenTable(name_);
    ASSERT_OK(table);
    ASSERT_OK(Fill(*table, rows, partition_keys));
  }

  // partkv copy local Src -> the server (through the proxy) as name_.
  KilledRun CopyToServer(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"copy",         "--from",    local_,  "--to",   proxied_,
                                     "Src",          "--as",      name_,   "--mode", "insert",
                                     "--checkpoint", checkpoint_, "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return testing::RunKillable(args, dir_.path(), checkpoint_, {});
  }
  // partkv copy the server's name_ (through the proxy) -> local Dst.
  KilledRun CopyFromServer(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"copy",         "--from",    proxied_, "--to",   local_,
                                     name_,          "--as",      "Dst",    "--mode", "insert",
                                     "--checkpoint", checkpoint_, "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return testing::RunKillable(args, dir_.path(), checkpoint_, {});
  }

  // The finished run's report, checked: every row read was written or found already there.
  nlohmann::json Finished(const KilledRun& run) {
    EXPECT_EQ(run.exit_code, 0) << run.err << run.out;
    EXPECT_FALSE(std::filesystem::exists(checkpoint_)) << "a finished copy keeps its checkpoint";
    auto report = testing::CopyJson(run.out);
    EXPECT_OK(report);
    if (!report.ok()) return nlohmann::json::object();
    EXPECT_TRUE(report->value("ok", false)) << report->dump();
    EXPECT_EQ(report->value("rows_read", 0u),
              report->value("rows_written", 0u) + report->value("rows_skipped", 0u))
        << report->dump();
    return *report;
  }

  // The copy stopped with an error that says how to go on, and left its checkpoint.
  void Stopped(const KilledRun& run) {
    EXPECT_NE(run.exit_code, 0) << run.err << run.out;
    EXPECT_THAT(run.err, HasSubstr("resume with --resume (checkpoint " + checkpoint_ + ")"));
    EXPECT_TRUE(std::filesystem::exists(checkpoint_));
    auto report = testing::CopyJson(run.out);
    ASSERT_OK(report);
    EXPECT_FALSE(report->value("ok", true)) << report->dump();
    EXPECT_TRUE(report->contains("error")) << report->dump();
  }

  // Runs `copy` until a run finishes, at most `max_runs` times: after a stop that left a checkpoint
  // with --resume; after a failure that left none, afresh, and then nothing may have been
  // written. Returns the runs that did not finish.
  int CopyUntilFinished(const std::function<KilledRun(const std::vector<std::string>&)>& copy,
                        const std::vector<std::string>& extra, const std::string& to,
                        const std::string& to_table, int max_runs = 8) {
    bool resume = false;
    for (int run = 0; run < max_runs; ++run) {
      std::vector<std::string> args = extra;
      if (resume) args.push_back("--resume");
      const KilledRun result = copy(args);
      if (result.exit_code == 0) {
        Finished(result);
        return run;
      }
      if (std::filesystem::exists(checkpoint_)) {
        Stopped(result);
        resume = true;
      } else {
        // Stopped before its first checkpoint (a remote source's ranges could not be probed).
        EXPECT_THAT(result.err, Not(HasSubstr("--resume"))) << result.err;
        auto written = testing::CountRows(to, to_table);
        EXPECT_OK(written);
        EXPECT_EQ(written.ok() ? *written : 1, 0u) << "failed without a checkpoint, yet wrote";
        resume = false;
      }
      if (HasFailure()) return run + 1;
    }
    ADD_FAILURE() << max_runs << " runs did not finish the copy";
    return max_runs;
  }

  // The destination holds the source exactly: --verify-only without the proxy, and a count.
  void ExpectCopied(const std::string& from, const std::string& from_table, const std::string& to,
                    const std::string& to_table, int rows) {
    const KilledRun verify = testing::RunKillable({"copy", "--from", from, "--to", to, from_table,
                                                   "--as", to_table, "--verify-only", "--json"},
                                                  dir_.path(), checkpoint_, {});
    EXPECT_EQ(verify.exit_code, 0) << verify.err << verify.out;
    auto report = testing::CopyJson(verify.out);
    ASSERT_OK(report);
    ASSERT_TRUE(report->contains("verify")) << report->dump();
    const nlohmann::json& v = (*report)["verify"];
    EXPECT_EQ(v.value("missing", 1u), 0u) << v.dump();
    EXPECT_EQ(v.value("extra", 1u), 0u) << v.dump();
    EXPECT_EQ(v.value("different", 1u), 0u) << v.dump();
    EXPECT_EQ(v.value("source_rows", 0u), static_cast<uint64_t>(rows)) << v.dump();
    auto counted = testing::CountRows(to, to_table);
    ASSERT_OK(counted);
    EXPECT_EQ(*counted, static_cast<uint64_t>(rows));
  }
  void ExpectCopiedToServer(int rows = kRows) { ExpectCopied(local_, "Src", direct_, name_, rows); }
  void ExpectCopiedFromServer(int rows = kRows) {
    ExpectCopied(direct_, name_, local_, "Dst", rows);
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
  void AddStall(std::string method, std::string target_contains, std::chrono::milliseconds stall) {
    FaultProxy::Rule rule;
    rule.fault = Fault::kStall;
    rule.method = std::move(method);
    rule.target_contains = std::move(target_contains);
    rule.stall = stall;
    proxy_->AddRule(std::move(rule));
  }

  static std::string BatchTarget() { return "/devstoreaccount1/$batch"; }
  // The first page of an unfiltered read of the server's table: a copy with --parallel 1 reads
  // its one range with it, then continuation pages (the same target and &NextPartitionKey=...).
  std::string FirstPageTarget() const { return "/devstoreaccount1/" + name_ + "()?$top=1000"; }

  testing::TempDir dir_;
  testing::EndpointServer* server_ = nullptr;
  std::unique_ptr<FaultProxy> proxy_;
  std::string name_;
  std::string direct_, proxied_;
  std::string local_, checkpoint_;
};

// ---- local -> partkv serve: the batches of the destination's writers meet the faults ----------

TEST_F(CopyFaultsTest, ToServerLostBatchResponsesAreSettledByTheLostWriteRule) {
  MakeLocalSource();
  AddRule(Fault::kDropAfterForward, "POST", BatchTarget(), 3);
  const nlohmann::json report = Finished(CopyToServer({"--parallel", "2"}));
  EXPECT_EQ(report.value("rows_written", 0u), static_cast<uint64_t>(kRows)) << report.dump();
  // 80 batches, three of them sent twice: the retry met EntityAlreadyExists, the rows read back
  // held what the batch sent, so it is done.
  EXPECT_EQ(proxy_->Received("POST", BatchTarget()), kPartitionKeys + 3);
  EXPECT_EQ(proxy_->Forwarded("POST", BatchTarget()), kPartitionKeys + 3);
  ExpectCopiedToServer();
}

TEST_F(CopyFaultsTest, ToServerServiceBusyStormIsWaitedOut) {
  MakeLocalSource();
  AddBusy("POST", BatchTarget(), 15);
  const nlohmann::json report = Finished(CopyToServer({"--parallel", "2"}));
  EXPECT_EQ(report.value("rows_written", 0u), static_cast<uint64_t>(kRows)) << report.dump();
  EXPECT_EQ(report.value("retries", 0u), 15u) << report.dump();
  EXPECT_EQ(proxy_->Received("POST", BatchTarget()), kPartitionKeys + 15);
  EXPECT_EQ(proxy_->Forwarded("POST", BatchTarget()), kPartitionKeys);
  ExpectCopiedToServer();
}

TEST_F(CopyFaultsTest, ToServerConnectionResetsAreRetried) {
  MakeLocalSource();
  AddRule(Fault::kDropBeforeForward, "POST", BatchTarget(), 5);
  const nlohmann::json report = Finished(CopyToServer({"--parallel", "2"}));
  EXPECT_EQ(report.value("rows_written", 0u), static_cast<uint64_t>(kRows)) << report.dump();
  EXPECT_EQ(proxy_->Received("POST", BatchTarget()), kPartitionKeys + 5);
  EXPECT_EQ(proxy_->Forwarded("POST", BatchTarget()), kPartitionKeys);
  ExpectCopiedToServer();
}

TEST_F(CopyFaultsTest, ToServerAStallShorterThanTheTimeoutIsWaitedFor) {
  MakeLocalSource();
  AddStall("POST", BatchTarget(), std::chrono::milliseconds(1500));
  const KilledRun run = CopyToServer({"--parallel", "2"});
  const nlohmann::json report = Finished(run);
  EXPECT_EQ(report.value("rows_written", 0u), static_cast<uint64_t>(kRows)) << report.dump();
  EXPECT_GE(run.elapsed, std::chrono::milliseconds(1500));
  // Held, not retried: every batch reached the server once.
  EXPECT_EQ(proxy_->Received("POST", BatchTarget()), kPartitionKeys);
  EXPECT_EQ(proxy_->Forwarded("POST", BatchTarget()), kPartitionKeys);
  ExpectCopiedToServer();
}

// One batch (100 rows of one PartitionKey): its first five attempts are reset, the sixth and last
// is applied and its response lost. The copy stops (whether the batch was applied is unknown to
// it); the resumed copy finds the 100 rows there, as sent, and inserts none again.
TEST_F(CopyFaultsTest, ToServerABatchAppliedOnItsLastAttemptIsFoundByTheResumedCopy) {
  MakeLocalSource(100, 1);
  AddRule(Fault::kDropBeforeForward, "POST", BatchTarget(), 5);
  AddRule(Fault::kDropAfterForward, "POST", BatchTarget(), 1);
  Stopped(CopyToServer());
  EXPECT_EQ(proxy_->Received("POST", BatchTarget()), 6);
  EXPECT_EQ(proxy_->Forwarded("POST", BatchTarget()), 1);
  auto there = testing::CountRows(direct_, name_);
  ASSERT_OK(there);
  EXPECT_EQ(*there, 100u);

  const nlohmann::json report = Finished(CopyToServer({"--resume"}));
  EXPECT_EQ(report.value("rows_skipped", 0u), 100u) << report.dump();
  EXPECT_EQ(report.value("rows_written", 1u), 0u) << report.dump();
  EXPECT_EQ(proxy_->Received("POST", BatchTarget()), 6) << "the resumed copy sent the batch again";
  ExpectCopiedToServer(100);
}

// Two interrupted runs in a row, each leaving batches in the destination past its checkpoint.
// One unit (one physical partition) of 20 PartitionKeys of 100 rows: every batch is 100 rows, and
// at most 2 * max_batches_in_flight = 8 wait for their acknowledgement, in stream order.
//   - Run 1: the response to its first batch (p000) is held by the proxy; p001..p007 are
//     written and answered, but their acknowledgement waits behind p000's. Once the server
//     holds those 800 rows, run 1 is killed: the checkpoint records nothing of the unit.
//   - Run 2 (--resume) looks up the first (2 * 4 + 1) * 100 = 900 rows: p000..p007 are there
//     (800 rows found), p008 is not. It sends p008 (held again by the proxy), then p009..p015
//     (written; acknowledgements waiting behind p008's). Once the server holds 1,600 rows,
//     run 2 is killed: the found rows were never recorded, the checkpoint still records nothing.
//   - Run 3 (--resume) looks up the same first 900 rows (p000..p008, all there), then sends
//     p009 onwards, which run 2 wrote.
// What is expected: run 3 finishes (an insert copy resumes cleanly, copy.h "Resuming"), nothing
// lost or doubled.
TEST_F(CopyFaultsTest, ToServerTwoInterruptedRunsInARowThenResumeCleanly) {
  MakeLocalSource(2000, 20, 1);
  auto count = [&](uint64_t rows) {
    return [this, rows] {
      auto counted = testing::CountRows(direct_, name_);
      return counted.ok() && *counted >= rows;
    };
  };
  const std::vector<std::string> args = {"copy",         "--from",    local_,  "--to",   proxied_,
                                         "Src",          "--as",      name_,   "--mode", "insert",
                                         "--checkpoint", checkpoint_, "--json"};
  std::vector<std::string> resume = args;
  resume.push_back("--resume");

  AddStall("POST", BatchTarget(), std::chrono::seconds(60));
  testing::KillPlan plan;
  plan.condition = count(800);
  KilledRun run = testing::RunKillable(args, dir_.path(), checkpoint_, plan);
  ASSERT_TRUE(run.killed) << run.err << run.out;
  // The stall holds the first batch the proxy receives, which is p000's unless another of the
  // four sent at once overtook it on the way (a slow machine): then more than 800 rows are
  // there, all the same past the checkpoint.
  auto there = testing::CountRows(direct_, name_);
  ASSERT_OK(there);
  ASSERT_GE(*there, 800u);
  ASSERT_LT(*there, 1600u) << "run 1 wrote more than its window";
  ASSERT_TRUE(std::filesystem::exists(checkpoint_));

  AddStall("POST", BatchTarget(), std::chrono::seconds(60));
  plan.condition = count(1600);
  run = testing::RunKillable(resume, dir_.path(), checkpoint_, plan);
  ASSERT_TRUE(run.killed) << run.err << run.out;
  there = testing::CountRows(direct_, name_);
  ASSERT_OK(there);
  ASSERT_GE(*there, 1600u);
  ASSERT_LT(*there, 2000u) << "run 2 finished the copy";

  const nlohmann::json report =
      Finished(testing::RunKillable(resume, dir_.path(), checkpoint_, {}));
  EXPECT_EQ(report.value("rows_written", 0u), 2000u - *there) << report.dump();
  EXPECT_LE(report.value("rows_skipped", 0u), *there) << report.dump();
  EXPECT_EQ(report.value("rows_read", 0u),
            report.value("rows_written", 0u) + report.value("rows_skipped", 0u))
      << report.dump();
  ExpectCopiedToServer(2000);
}

// Faults of every kind, more than the retries absorb: with one stream at most eight batches are
// in flight (2 * max_batches_in_flight), so sixty resets in a row exhaust some batch's six
// attempts and the copy stops; resumed runs meet the rest — lost responses (on a last attempt:
// the batch is there, found by the resumed copy), 503s, failed point reads of the lookups — and
// finish the copy.
TEST_F(CopyFaultsTest, ToServerMixedFaultsPastTheRetriesEndInACompleteCopy) {
  MakeLocalSource();
  AddRule(Fault::kDropAfterForward, "POST", BatchTarget(), 2);
  AddRule(Fault::kDropBeforeForward, "POST", BatchTarget(), 60);
  AddRule(Fault::kDropAfterForward, "POST", BatchTarget(), 6);
  AddBusy("POST", BatchTarget(), 8);
  AddRule(Fault::kDropBeforeForward, "GET", "/devstoreaccount1/" + name_ + "(PartitionKey=", 3);
  const int stops =
      CopyUntilFinished([&](const std::vector<std::string>& extra) { return CopyToServer(extra); },
                        {"--parallel", "1"}, direct_, name_);
  std::printf("[copy faults] the copy stopped %d times before it finished\n", stops);
  EXPECT_GE(stops, 1) << "sixty resets in a row did not stop the copy";
  EXPECT_GE(proxy_->Received("POST", BatchTarget()), kPartitionKeys + 60 + 6 + 8);
  ExpectCopiedToServer();
}

// ---- partkv serve -> local: the source's query pages meet the faults -------------------------

TEST_F(CopyFaultsTest, FromServerLostPageResponsesAreReadAgain) {
  MakeRemoteSource();
  AddRule(Fault::kDropAfterForward, "GET", FirstPageTarget(), 3);
  const nlohmann::json report = Finished(CopyFromServer({"--parallel", "1"}));
  EXPECT_EQ(report.value("rows_written", 0u), static_cast<uint64_t>(kRows)) << report.dump();
  EXPECT_EQ(proxy_->Received("GET", FirstPageTarget()), 4);
  EXPECT_EQ(proxy_->Forwarded("GET", FirstPageTarget()), 4);
  ExpectCopiedFromServer();
}

TEST_F(CopyFaultsTest, FromServerServiceBusyStormIsWaitedOut) {
  MakeRemoteSource();
  AddBusy("GET", FirstPageTarget(), 5);  // the copy's reads, not the command's first probe
  const nlohmann::json report = Finished(CopyFromServer({"--parallel", "1"}));
  EXPECT_EQ(report.value("rows_written", 0u), static_cast<uint64_t>(kRows)) << report.dump();
  EXPECT_EQ(report.value("retries", 0u), 5u) << report.dump();
  EXPECT_EQ(proxy_->Received("GET", FirstPageTarget()), 6);
  EXPECT_EQ(proxy_->Forwarded("GET", FirstPageTarget()), 1);
  ExpectCopiedFromServer();
}

TEST_F(CopyFaultsTest, FromServerConnectionResetsStallsAndTruncatedPagesAreRetried) {
  MakeRemoteSource();
  AddRule(Fault::kDropBeforeForward, "GET", FirstPageTarget(), 2);
  AddStall("GET", FirstPageTarget(), std::chrono::milliseconds(1500));
  FaultProxy::Rule truncate;
  truncate.fault = Fault::kTruncate;
  truncate.method = "GET";
  truncate.target_contains = FirstPageTarget();
  truncate.truncate_to = 100;
  proxy_->AddRule(truncate);
  const KilledRun run = CopyFromServer({"--parallel", "1"});
  const nlohmann::json report = Finished(run);
  EXPECT_EQ(report.value("rows_written", 0u), static_cast<uint64_t>(kRows)) << report.dump();
  EXPECT_GE(run.elapsed, std::chrono::milliseconds(1500));
  // The first page: two resets, then the stalled answer, held and read whole. The second page
  // (its continuation) was truncated once and asked for again.
  EXPECT_EQ(proxy_->Received("GET", FirstPageTarget()), 3);
  EXPECT_EQ(proxy_->Forwarded("GET", FirstPageTarget()), 1);
  ExpectCopiedFromServer();
}

// The first page is read; the next one's every attempt is reset. The copy stops having written
// the first page and checkpointed it; the resumed copy reads the rest.
TEST_F(CopyFaultsTest, FromServerAReadFailingPastTheRetriesStopsAndTheResumedCopyFinishes) {
  MakeRemoteSource();
  AddRule(Fault::kForward, "GET", FirstPageTarget(), 1);
  AddRule(Fault::kDropBeforeForward, "GET", FirstPageTarget(), 6);
  Stopped(CopyFromServer({"--parallel", "1"}));
  EXPECT_EQ(proxy_->Received("GET", FirstPageTarget()), 1);
  auto written = testing::CountRows(local_, "Dst");
  ASSERT_OK(written);
  EXPECT_EQ(*written, 1000u) << "the first page is written and checkpointed";

  const nlohmann::json report = Finished(CopyFromServer({"--parallel", "1", "--resume"}));
  EXPECT_EQ(report.value("rows_read", 0u), static_cast<uint64_t>(kRows) - 1000) << report.dump();
  EXPECT_EQ(report.value("rows_written", 0u), static_cast<uint64_t>(kRows) - 1000) << report.dump();
  EXPECT_EQ(report.value("rows_skipped", 1u), 0u) << report.dump();
  ExpectCopiedFromServer();
}

// Four streams: the source's ranges are probed (one query at a time), then read in parallel. The
// faults land on probes and pages alike; a probe that fails past its retries stops the copy
// before anything is written (no checkpoint: it starts afresh), a page that does stops it with
// a checkpoint (it resumes).
TEST_F(CopyFaultsTest, FromServerMixedFaultsOnParallelReadsEndInACompleteCopy) {
  MakeRemoteSource();
  const std::string reads = "/devstoreaccount1/" + name_ + "()";
  AddRule(Fault::kDropAfterForward, "GET", reads, 3);
  AddBusy("GET", reads, 6);
  AddRule(Fault::kDropBeforeForward, "GET", reads, 4);
  FaultProxy::Rule truncate;
  truncate.fault = Fault::kTruncate;
  truncate.method = "GET";
  truncate.target_contains = reads;
  truncate.truncate_to = 10;
  truncate.times = 2;
  proxy_->AddRule(truncate);
  AddStall("GET", reads, std::chrono::milliseconds(500));
  AddRule(Fault::kDropBeforeForward, "GET", reads + "?$top=1000", 8);
  const int stops = CopyUntilFinished(
      [&](const std::vector<std::string>& extra) { return CopyFromServer(extra); },
      {"--parallel", "4"}, local_, "Dst");
  std::printf("[copy faults] the copy stopped %d times before it finished\n", stops);
  ExpectCopiedFromServer();
}

}  // namespace
}  // namespace partkv
