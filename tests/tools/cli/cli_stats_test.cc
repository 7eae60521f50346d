// partkv stats (a table's physical and logical partitions, scanned) and partkv analyze (the
// analyzer's report on a sample, nothing written), as JSON and as bar charts.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "nlohmann/json.hpp"
#include "partkv/analyzer.h"
#include "partkv/json.h"
#include "tests/testing/status_matchers.h"
#include "tests/tools/cli/cli_runner.h"

namespace partkv::testing {
namespace {

using nlohmann::json;

class CliStatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cli_.Run({"table", "create", "Orders", "--partitions", "4"}).exit_code, 0);
    // 6 rows of "hot", 3 of "warm", 1 of "cold".
    std::string input;
    int n = 0;
    for (auto [pk, rows] : {std::pair{"hot", 6}, std::pair{"warm", 3}, std::pair{"cold", 1}}) {
      for (int i = 0; i < rows; ++i) {
        input += R"({"PartitionKey":")" + std::string(pk) + R"(","RowKey":")" + std::to_string(i) +
                 R"(","n":)" + std::to_string(n++) + "}\n";
      }
    }
    sample_ = input;
    RunResult r = cli_.Run({"import", "Orders"}, input);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  TempDir dir_;
  CliRunner cli_{dir_};
  std::string sample_;
};

TEST_F(CliStatsTest, JsonCountsEveryPartition) {
  RunResult r = cli_.Run({"stats", "Orders", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json s = json::parse(r.out);
  EXPECT_EQ(s["table"], "Orders");
  EXPECT_EQ(s["physical_partitions"], 4);
  EXPECT_EQ(s["entities"], 10);
  EXPECT_EQ(s["logical_partitions"], 3);
  ASSERT_EQ(s["partitions"].size(), 4u);
  uint64_t entities = 0, bytes = 0, logical = 0;
  for (const auto& p : s["partitions"]) {
    entities += p["entities"].get<uint64_t>();
    bytes += p["bytes"].get<uint64_t>();
    logical += p["logical_partitions"].get<uint64_t>();
  }
  EXPECT_EQ(entities, 10u);
  EXPECT_EQ(logical, 3u);
  EXPECT_EQ(bytes, s["bytes"].get<uint64_t>());
  EXPECT_GT(bytes, 10u * 20);
  ASSERT_EQ(s["hottest_logical"].size(), 3u);
  EXPECT_EQ(s["hottest_logical"][0]["key"], "hot");
  EXPECT_EQ(s["hottest_logical"][0]["entities"], 6);
  EXPECT_EQ(s["hottest_logical"][1]["key"], "warm");
  EXPECT_EQ(s["hottest_logical"][2]["key"], "cold");
  // The hottest partition's physical partition holds at least its rows.
  size_t hot_partition = s["hottest_logical"][0]["physical_partition"];
  EXPECT_GE(s["partitions"][hot_partition]["entities"].get<int>(), 6);

  r = cli_.Run({"stats", "Orders", "--json", "--top", "1"});
  EXPECT_EQ(json::parse(r.out)["hottest_logical"].size(), 1u);
}

TEST_F(CliStatsTest, ChartsDrawBarsScaledToTheLargest) {
  RunResult r = cli_.Run({"stats", "Orders"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("table Orders: 10 entities, ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("3 logical partitions in 4 physical partitions"), std::string::npos);
  EXPECT_NE(r.out.find("\np0  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\np3  "), std::string::npos) << r.out;
  // "hot" fills the bar area of an 80-column chart; "cold" gets a sixth of it.
  size_t hot = r.out.find("\nhot ");
  ASSERT_NE(hot, std::string::npos) << r.out;
  std::string hot_line = r.out.substr(hot + 1, r.out.find('\n', hot + 1) - hot - 1);
  EXPECT_NE(hot_line.find("████████████████████"), std::string::npos) << hot_line;
  EXPECT_NE(hot_line.find("60.0%"), std::string::npos) << hot_line;
  for (const std::string& line : r.OutLines()) {
    EXPECT_TRUE(line.empty() || line.back() != ' ') << "trailing space: " << line;
  }
  EXPECT_EQ(cli_.Run({"stats", "Missing"}).exit_code, 3);
}

TEST_F(CliStatsTest, AnalyzeJsonIsTheLibrarysReport) {
  const std::string strategy = "hash-suffix(PartitionKey,n,4)";
  auto analyzer = Analyzer::Create(*KeyStrategy::Parse(strategy), {.physical_partitions = 8});
  ASSERT_OK(analyzer);
  size_t start = 0;
  while (start < sample_.size()) {
    size_t end = sample_.find('\n', start);
    analyzer->Add(*EntityFromJson(sample_.substr(start, end - start)));
    start = end + 1;
  }
  RunResult r = cli_.Run({"analyze", "--pk", strategy, "--partitions", "8", "--json",
                          cli_.WriteFile("sample.jsonl", sample_)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, AnalysisReportToJson(analyzer->Finish()) + "\n");
  // From stdin, without a store.
  RunResult piped = cli_.RunRaw(
      {"--store", dir_.Sub("none"), "analyze", "--pk", strategy, "--partitions", "8", "--json"},
      RunOptions{.input = sample_});
  EXPECT_EQ(piped.out, r.out);
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("none")));
}

TEST_F(CliStatsTest, AnalyzeChartShowsSkewFanOutAndCloudTimes) {
  RunResult r = cli_.Run({"analyze", "--pk", "hash-suffix(PartitionKey,n,4)"}, sample_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("strategy hash-suffix(PartitionKey,n,4,hash=xxh3): 10 entities keyed, 0 "
                        "could not be keyed\n",
                        0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("read fan-out: 4 partitions per base key"), std::string::npos);
  EXPECT_NE(r.out.find("entities per physical partition\np0 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  azure-table: "), std::string::npos);
  EXPECT_NE(r.out.find("  cosmos: "), std::string::npos);
  // An entity the strategy cannot key is counted, not fatal.
  r = cli_.Run({"analyze", "--pk", "concat(missing)"}, sample_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 entities keyed, 10 could not be keyed"), std::string::npos) << r.out;
}

TEST_F(CliStatsTest, AnalyzeRejectsBadInput) {
  RunResult r = cli_.Run({"analyze", "--pk", "concat(a"}, sample_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("partkv: error: InvalidArgument: --pk: ", 0), 0u) << r.err;
  r = cli_.Run({"analyze", "--pk", "concat(a)"}, R"({"a":1})"
                                                 "\n"
                                                 "{oops\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("line 2: "), std::string::npos) << r.err;
  r = cli_.Run({"analyze", "--pk", "concat(a)", "--partitions", "0"}, sample_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(cli_.Run({"analyze", "concat(a)"}).exit_code, 2);  // --pk is required
}

}  // namespace
}  // namespace partkv::testing
