// partkv-bench --target (tools/bench/target.h) against `partkv serve --throttling`: the hot
// strategy meets 503 ServerBusy answers and waits them out, the spread one meets none, every
// strategy's entities reach the endpoint, the report carries the measured figures with the
// account key redacted, and the endpoint's tables are deleted unless --keep-target-tables.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "partkv/store.h"
#include "tests/testing/csv.h"
#include "tests/testing/endpoint_server.h"
#include "tests/testing/status_matchers.h"
#include "tests/tools/cli/cli_runner.h"

namespace partkv {
namespace {

using testing::CliRunner;
using testing::RunOptions;
using testing::RunResult;

// The CSV's rows as column -> value, keyed by strategy label.
std::map<std::string, std::map<std::string, std::string>> ReadCsv(const std::string& path) {
  std::map<std::string, std::map<std::string, std::string>> rows;
  for (auto& row : testing::CsvRows(testing::ReadFileText(path))) rows[row["strategy"]] = row;
  return rows;
}

class BenchTargetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::PartkvServeOptions options;
    options.extra_args = {"--throttling"};
    auto server = testing::PartkvServe::Start(PARTKV_CLI_PATH, options);
    ASSERT_OK(server);
    server_ = std::move(*server);
  }

  RunResult Bench(std::vector<std::string> args) const {
    RunOptions options;
    options.binary = PARTKV_BENCH_PATH;
    return cli_.RunRaw(args, options);
  }

  std::vector<std::string> Tables() const {
    auto store = Store::Open(server_->connection_string());
    EXPECT_OK(store);
    auto tables = store->ListTables();
    EXPECT_OK(tables);
    std::vector<std::string> names;
    for (const TableInfo& t : *tables) names.push_back(t.name);
    return names;
  }

  testing::TempDir dir_;
  CliRunner cli_{dir_};
  std::unique_ptr<testing::PartkvServe> server_;
};

TEST_F(BenchTargetTest, MeasuresTheThrottlingEachStrategyMeetsOnTheEndpoint) {
  const std::string out = dir_.Sub("report");
  // At this replay rate the burst outruns one PartitionKey's 2,000 entities/s many times over.
  RunResult r = Bench({"--events", "3000", "--days", "1", "--replay-rate", "1000000", "--out", out,
                       "--target", server_->connection_string(), "--keep-target-tables"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("Measured on the target"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(std::string(testing::kDevAccountKey)), std::string::npos);
  EXPECT_NE(r.out.find("AccountKey=<redacted>"), std::string::npos);

  auto rows = ReadCsv(out + "/partkv-compare.csv");
  ASSERT_EQ(rows.size(), 6u);
  for (const auto& [label, row] : rows) {
    EXPECT_EQ(row.at("target_entities_written"), "3000") << label;
    EXPECT_EQ(row.at("target_profile"), "azure-table") << label;
    EXPECT_NE(row.at("target_point_p50_us"), "") << label;
  }
  const auto& hot = rows.at("date");
  EXPECT_GT(std::stoull(hot.at("target_throttled_answers")), 0u);
  EXPECT_GT(std::stod(hot.at("target_retry_wait_seconds")), 0.0);
  const auto& spread = rows.at("hash-suffix(date,orderId,200)");
  EXPECT_EQ(spread.at("target_throttled_answers"), "0");
  EXPECT_EQ(std::stod(spread.at("target_retry_wait_seconds")), 0.0);
  // The measured answers rank the strategies as the prediction does: the hot key is refused.
  EXPECT_GT(std::stod(hot.at("azure_table_throttle_rate")), 0.0);
  EXPECT_EQ(std::stod(spread.at("azure_table_throttle_rate")), 0.0);

  const std::string html = testing::ReadFileText(out + "/partkv-compare.html");
  EXPECT_NE(html.find("id=\"target\""), std::string::npos);
  EXPECT_EQ(html.find(std::string(testing::kDevAccountKey)), std::string::npos);

  // Kept: one table per strategy, holding the workload.
  std::vector<std::string> tables = Tables();
  ASSERT_EQ(tables.size(), 6u);
  auto store = Store::Open(server_->connection_string());
  ASSERT_OK(store);
  for (const auto& [label, row] : rows) {
    auto table = store->OpenTable(row.at("target_table"));
    ASSERT_OK(table) << label;
    uint64_t n = 0;
    Query q;
    do {
      auto page = table->QueryEntities(q);
      ASSERT_OK(page);
      n += page->entities.size();
      q.continuation = page->continuation;
    } while (!q.continuation.empty());
    EXPECT_EQ(n, 3000u) << label;
  }
}

TEST_F(BenchTargetTest, DeletesItsTablesOnTheEndpoint) {
  RunResult r = Bench({"--events", "400", "--days", "1", "--out", dir_.Sub("report"), "--target",
                       server_->connection_string()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(Tables().empty());
}

TEST_F(BenchTargetTest, RefusesALocalDirectoryAndSweep) {
  RunResult local =
      Bench({"--events", "400", "--out", dir_.Sub("report"), "--target", dir_.Sub("d")});
  EXPECT_EQ(local.exit_code, 2);
  EXPECT_NE(local.err.find("--target: "), std::string::npos) << local.err;
  RunResult sweep = Bench({"--events", "400", "--out", dir_.Sub("report"), "--sweep", "--target",
                           server_->connection_string()});
  EXPECT_EQ(sweep.exit_code, 2);
  EXPECT_NE(sweep.err.find("--target: not with --sweep"), std::string::npos) << sweep.err;
  EXPECT_EQ(sweep.err.find(std::string(testing::kDevAccountKey)), std::string::npos);
}

TEST_F(BenchTargetTest, AnEndpointThatDoesNotAnswerFailsNamingTheTarget) {
  const std::string gone = server_->connection_string();
  server_.reset();  // stopped: its port refuses connections
  RunResult r =
      Bench({"--events", "400", "--days", "1", "--out", dir_.Sub("report"), "--target", gone});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("on the target"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(std::string(testing::kDevAccountKey)), std::string::npos) << r.err;
}

}  // namespace
}  // namespace partkv
