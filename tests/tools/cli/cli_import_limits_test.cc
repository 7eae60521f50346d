// partkv import under a profile's own batch limits: batches are cut by the table's limits (a
// cosmos table's 2 MB), not Azure's 4 MiB, so large rows that fit one by one are written.

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/tools/cli/cli_runner.h"

namespace partkv::testing {
namespace {

TEST(CliImportLimitsTest, BatchesFollowTheTablesProfile) {
  TempDir dir;
  CliRunner cli(dir);
  ASSERT_EQ(cli.Run({"table", "create", "Docs", "--profile", "cosmos"}).exit_code, 0);
  // 100 rows of about 60 KB by Azure's formula (30,000 UTF-16 characters): 6 MB in all, 34 to a
  // 2 MB batch.
  std::string input;
  for (int i = 0; i < 100; ++i) {
    char rk[8];
    std::snprintf(rk, sizeof rk, "%03d", i);
    input += R"({"PartitionKey":"p","RowKey":")" + std::string(rk) + R"(","s":")" +
             std::string(30000, 'x') + "\"}\n";
  }
  RunResult r = cli.Run({"import", "Docs", cli.WriteFile("big.jsonl", input)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("100 of 100 rows written to Docs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; 3 batches;"), std::string::npos) << r.err;
  r = cli.Run({"export", "Docs"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.OutLines().size(), 100u);
}

}  // namespace
}  // namespace partkv::testing
