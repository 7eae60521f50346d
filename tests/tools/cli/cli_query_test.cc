// partkv query | query-shards | export: pages as one JSON document, --all as JSON Lines, key
// ranges, filters, $select, order, continuation tokens.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "tests/tools/cli/cli_runner.h"

namespace partkv::testing {
namespace {

using nlohmann::json;

class CliQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cli_.Run({"table", "create", "Orders", "--partitions", "4"}).exit_code, 0);
    std::string lines;
    for (const char* pk : {"a", "b", "c"}) {
      for (int i = 0; i < 5; ++i) {
        lines += R"({"PartitionKey":")" + std::string(pk) + R"(","RowKey":"r)" + std::to_string(i) +
                 R"(","n":)" + std::to_string(i) + "}\n";
      }
    }
    RunResult r = cli_.Run({"import", "Orders"}, lines);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // "pk/rk" of each entity of a page or of JSON Lines.
  static std::vector<std::string> Keys(const json& entities) {
    std::vector<std::string> keys;
    for (const auto& e : entities) {
      keys.push_back(e["PartitionKey"].get<std::string>() + "/" + e["RowKey"].get<std::string>());
    }
    return keys;
  }
  static json Lines(const RunResult& r) {
    json all = json::array();
    for (const std::string& line : r.OutLines()) all.push_back(json::parse(line));
    return all;
  }

  TempDir dir_;
  CliRunner cli_{dir_};
};

TEST_F(CliQueryTest, OnePageIsOneJsonDocument) {
  RunResult r = cli_.Run({"query", "Orders", "--pk", "b"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);
  json page = json::parse(r.out);
  EXPECT_EQ(Keys(page["value"]),
            (std::vector<std::string>{"b/r0", "b/r1", "b/r2", "b/r3", "b/r4"}));
  EXPECT_TRUE(page["continuation"].is_null());
  EXPECT_TRUE(page["value"][0]["odata.etag"].is_string());
}

TEST_F(CliQueryTest, ContinuationTokensPageThroughTheResult) {
  std::vector<std::string> keys;
  std::string token;
  int pages = 0;
  while (true) {
    std::vector<std::string> args = {"query", "Orders", "--top", "4"};
    if (!token.empty()) args.insert(args.end(), {"--continuation", token});
    RunResult r = cli_.Run(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json page = json::parse(r.out);
    for (const auto& k : Keys(page["value"])) keys.push_back(k);
    ++pages;
    if (page["continuation"].is_null()) break;
    token = page["continuation"];
  }
  EXPECT_EQ(pages, 4);
  EXPECT_EQ(keys.size(), 15u);
  EXPECT_EQ(keys.front(), "a/r0");
  EXPECT_EQ(keys.back(), "c/r4");
}

TEST_F(CliQueryTest, AllFollowsTokensAndPrintsJsonLines) {
  RunResult r = cli_.Run({"query", "Orders", "--all", "--top", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r).size(), 15u);
  r = cli_.Run({"query", "Orders", "--all", "--desc", "--pk", "a"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Keys(Lines(r)), (std::vector<std::string>{"a/r4", "a/r3", "a/r2", "a/r1", "a/r0"}));
}

TEST_F(CliQueryTest, RowKeyRangesFiltersAndSelect) {
  auto keys_of = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"query", "Orders", "--all"});
    RunResult r = cli_.Run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Keys(Lines(r));
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(keys_of({"--pk", "a", "--rk-ge", "r1", "--rk-lt", "r3"}), (V{"a/r1", "a/r2"}));
  EXPECT_EQ(keys_of({"--pk", "a", "--rk-gt", "r1", "--rk-le", "r3"}), (V{"a/r2", "a/r3"}));
  EXPECT_EQ(keys_of({"--pk", "c", "--rk-prefix", "r4"}), (V{"c/r4"}));
  EXPECT_EQ(keys_of({"--filter", "n eq 4 and PartitionKey ne 'b'"}), (V{"a/r4", "c/r4"}));

  RunResult r = cli_.Run({"query", "Orders", "--pk", "a", "--top", "1", "--select", "n"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json e = json::parse(r.out)["value"][0];
  EXPECT_EQ(e["n"], 0);
  EXPECT_TRUE(e.contains("PartitionKey"));
}

TEST_F(CliQueryTest, BadQueriesExitTwo) {
  for (std::vector<std::string> args : {
           std::vector<std::string>{"--filter", "n eq"},
           std::vector<std::string>{"--continuation", "not-a-token"},
           std::vector<std::string>{"--top", "0"},
           std::vector<std::string>{"--top", "1001"},
           std::vector<std::string>{"--select", "a,,b"},
       }) {
    args.insert(args.begin(), {"query", "Orders"});
    RunResult r = cli_.Run(args);
    EXPECT_EQ(r.exit_code, 2) << args[2];
    EXPECT_EQ(r.err.rfind("partkv: error: InvalidArgument: ", 0), 0u) << r.err;
  }
  // A token of another query is refused.
  RunResult first = cli_.Run({"query", "Orders", "--top", "2"});
  std::string token = json::parse(first.out)["continuation"];
  EXPECT_EQ(
      cli_.Run({"query", "Orders", "--top", "2", "--pk", "a", "--continuation", token}).exit_code,
      2);
  EXPECT_EQ(cli_.Run({"query", "Missing"}).exit_code, 3);
}

TEST_F(CliQueryTest, QueryShardsMergesEveryShardByRowKey) {
  ASSERT_EQ(cli_.Run({"table", "create", "Days", "--pk", "random-suffix(date,3)"}).exit_code, 0);
  std::string lines;
  for (int i = 0; i < 9; ++i) {
    lines += R"({"date":"2018-08-09","RowKey":")" + std::to_string(i) +
             R"("})"
             "\n";
  }
  lines += R"({"date":"2018-08-10","RowKey":"x"})"
           "\n";
  RunResult r = cli_.Run({"import", "Days"}, lines);
  ASSERT_EQ(r.exit_code, 0) << r.err;

  r = cli_.Run({"query-shards", "Days", "2018-08-09", "--all"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json all = Lines(r);
  ASSERT_EQ(all.size(), 9u);
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i]["RowKey"], std::to_string(i));  // merged by RowKey across the shards
    EXPECT_EQ(all[i]["PartitionKey"].get<std::string>().rfind("2018-08-09.", 0), 0u);
  }
  r = cli_.Run({"query-shards", "Days", "2018-08-09", "--top", "4", "--rk-ge", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json page = json::parse(r.out);
  EXPECT_EQ(page["value"].size(), 4u);
  EXPECT_EQ(page["value"][0]["RowKey"], "3");
  EXPECT_TRUE(page["continuation"].is_string());

  // A table without a scheme needs --pk-strategy.
  r = cli_.Run({"query-shards", "Orders", "a"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = cli_.Run({"query-shards", "Orders", "a", "--pk-strategy", "random-suffix(x,2)", "--all"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());  // a.1 and a.2 hold nothing
  r = cli_.Run({"query-shards", "Orders", "a", "--pk-strategy", "bogus("});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--pk-strategy"), std::string::npos) << r.err;
}

TEST_F(CliQueryTest, ExportPrintsEveryEntityAsJsonLines) {
  RunResult r = cli_.Run({"export", "Orders"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json all = Lines(r);
  ASSERT_EQ(all.size(), 15u);
  EXPECT_TRUE(all[0]["odata.etag"].is_string());
  r = cli_.Run({"export", "Orders", "--filter", "n ge 3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r).size(), 6u);
  EXPECT_TRUE(r.err.empty());  // no progress when stderr is not a terminal
  EXPECT_EQ(cli_.Run({"export", "Orders", "--filter", "n eq"}).exit_code, 2);
}

}  // namespace
}  // namespace partkv::testing
