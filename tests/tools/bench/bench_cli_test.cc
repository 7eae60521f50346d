// partkv-bench as a user runs it: a tiny comparison writes its terminal table to stdout and its
// CSV and HTML into --out, leaves no working files behind, shows progress only on a terminal; bad
// flags exit with status 2 and one line on stderr naming the flag.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/temp_dir.h"
#include "tests/tools/cli/cli_runner.h"

namespace partkv::testing {
namespace {

namespace fs = std::filesystem;

// The tiny workload of these tests: about ten seconds.
const std::vector<std::string> kTiny = {"--events", "1500", "--days", "2"};

std::vector<std::string> Args(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

const char* const kLabels[] = {"date",
                               "concat(deviceId,date)",
                               "random-suffix(date,200)",
                               "hash-suffix(date,orderId,200)",
                               "hash-suffix(…,codepoint-product)",
                               "md5-bits(deviceId,4)"};

TEST(BenchCliTest, TinyRunPrintsTheTablesAndWritesCsvAndHtml) {
  TempDir dir;
  CliRunner bench(dir);
  const std::string out = dir.Sub("report"), work = dir.Sub("work");
  fs::create_directories(work);
  RunResult r = bench.RunRaw(Args(kTiny, {"--out", out, "--work-dir", work}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // stderr is not a terminal: no progress
  for (const char* label : kLabels) EXPECT_NE(r.out.find(label), std::string::npos) << label;
  const std::string csv = out + "/partkv-compare.csv", html = out + "/partkv-compare.html";
  EXPECT_NE(r.out.find("report: " + fs::absolute(html).lexically_normal().string()),
            std::string::npos)
      << r.out;
  const std::string csv_text = ReadFileText(csv), html_text = ReadFileText(html);
  size_t lines = 0;
  for (char c : csv_text) lines += c == '\n';
  EXPECT_EQ(lines, 1 + std::size(kLabels));
  for (const char* label : kLabels) {
    EXPECT_NE(csv_text.find(label), std::string::npos) << label;
    EXPECT_NE(html_text.find(std::string("data-strategy=\"") + label + "\""), std::string::npos)
        << label;
  }
  // The stores lived in a directory of their own under --work-dir, removed at the end.
  EXPECT_TRUE(fs::is_empty(work));
}

TEST(BenchCliTest, ProgressGoesToStderrOnlyWhenItIsATerminal) {
  TempDir dir;
  CliRunner bench(dir);
  RunOptions tty;
  tty.stderr_is_terminal = true;
  const std::string work = dir.Sub("work");
  fs::create_directories(work);
  RunResult r = bench.RunRaw(Args(kTiny, {"--out", dir.Sub("report"), "--work-dir", work}), tty);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("%"), std::string::npos) << r.err;
  // The first update is always shown; later ones at most every few hundred milliseconds, so
  // which later phases appear depends on the machine's speed.
  EXPECT_NE(r.err.find("analyzing the data"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("\r"), std::string::npos);  // the table itself never carries progress
}

TEST(BenchCliTest, BadFlagsExitWithOneLineNamingTheFlag) {
  TempDir dir;
  CliRunner bench(dir);
  const std::string file = bench.WriteFile("not-a-dir", "x");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--events", "lots"}, "--events"},
      {{"--events", "0"}, "--events"},
      {{"--events", "99"}, "--events"},
      {{"--days", "0"}, "--days"},
      {{"--days", "1000"}, "--days"},
      {{"--seed", "-1"}, "--seed"},
      {{"--partitions", "0"}, "--partitions"},
      {{"--partitions", "4096"}, "--partitions"},
      {{"--replay-rate", "fast"}, "--replay-rate"},
      {{"--out", file}, "--out"},
      {{"--out", file + "/sub"}, "--out"},
      {{"--out", "/proc/partkv-bench"}, "--out"},
  };
  for (const auto& [args, flag] : cases) {
    std::vector<std::string> all = args;
    if (flag != "--out") all.insert(all.end(), {"--out", dir.Sub("report")});
    RunResult r = bench.RunRaw(all);
    SCOPED_TRACE(args[0] + " " + args[1]);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err.rfind("partkv-bench: error: " + flag + ": ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST(BenchCliTest, HelpExitsZero) {
  TempDir dir;
  CliRunner bench(dir);
  RunResult r = bench.RunRaw({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--sweep"), std::string::npos);
}

}  // namespace
}  // namespace partkv::testing
