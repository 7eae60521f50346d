// partkv-bench's flags (tools/bench/flags.h): every bad value is refused before anything runs,
// with a message that starts with the flag's name.

#include "tools/bench/flags.h"

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tools/bench/strategies.h"

namespace partkv::compare {
namespace {

using ::partkv::testing::StatusIs;

class FlagsTest : public ::testing::Test {
 protected:
  // Parses `args` with --out set to a fresh directory unless the args set it.
  Result<BenchFlags> Parse(std::vector<std::string> args) {
    if (std::find(args.begin(), args.end(), "--out") == args.end()) {
      args.insert(args.begin(), {"--out", dir_.Sub("out")});
    }
    std::vector<const char*> argv = {"partkv-bench"};
    for (const auto& a : args) argv.push_back(a.c_str());
    return ParseFlags(static_cast<int>(argv.size()), argv.data());
  }
  // The error message, or "OK".
  std::string Error(std::vector<std::string> args) {
    auto r = Parse(std::move(args));
    if (r.ok()) return "OK";
    EXPECT_THAT(r, StatusIs(Status::Code::kInvalidArgument));
    return std::string(r.status().message());
  }

  testing::TempDir dir_;
};

TEST_F(FlagsTest, DefaultsAreTheDocumentedOnes) {
  auto f = Parse({});
  ASSERT_OK(f);
  EXPECT_EQ(f->events, 200000u);
  EXPECT_EQ(f->days, 7u);
  EXPECT_EQ(f->partitions, 16u);
  EXPECT_EQ(f->replay_rate, 5000);
  EXPECT_FALSE(f->sweep);
}

TEST_F(FlagsTest, GoodValuesAreTaken) {
  auto f = Parse({"--events", "1000", "--days", "3", "--seed", "18446744073709551615",
                  "--partitions", "1024", "--replay-rate", "2500.5", "--sweep"});
  ASSERT_OK(f);
  EXPECT_EQ(f->events, 1000u);
  EXPECT_EQ(f->days, 3u);
  EXPECT_EQ(f->seed, UINT64_MAX);
  EXPECT_EQ(f->partitions, 1024u);
  EXPECT_EQ(f->replay_rate, 2500.5);
  EXPECT_TRUE(f->sweep);
}

TEST_F(FlagsTest, NonNumericValueIsRefusedNamingTheFlag) {
  for (const char* flag : {"--events", "--days", "--seed", "--partitions", "--replay-rate"}) {
    for (const char* value : {"abc", "12x", "", "-5", "1e3x"}) {
      const std::string e = Error({flag, value});
      EXPECT_EQ(e.rfind(std::string(flag) + ": ", 0), 0u) << flag << " " << value << ": " << e;
    }
  }
  EXPECT_EQ(Error({"--events", "abc"}),
            "--events: 'abc' is not a whole number (expected 100..50,000,000)");
}

TEST_F(FlagsTest, ZeroAndOutOfRangeAreRefusedNamingTheFlag) {
  EXPECT_EQ(Error({"--events", "0"}), "--events: 0 is out of range (expected 100..50,000,000)");
  EXPECT_EQ(Error({"--events", "50000001"}),
            "--events: 50000001 is out of range (expected 100..50,000,000)");
  EXPECT_EQ(Error({"--days", "0"}), "--days: 0 is out of range (expected 1..366)");
  EXPECT_EQ(Error({"--days", "367"}), "--days: 367 is out of range (expected 1..366)");
  EXPECT_EQ(Error({"--partitions", "0"}), "--partitions: 0 is out of range (expected 1..1,024)");
  EXPECT_EQ(Error({"--partitions", "1025"}),
            "--partitions: 1025 is out of range (expected 1..1,024)");
  EXPECT_EQ(Error({"--seed", "18446744073709551616"}).rfind("--seed: ", 0), 0u);
  EXPECT_EQ(Error({"--replay-rate", "0"}).rfind("--replay-rate: 0 is out of range", 0), 0u);
  EXPECT_EQ(Error({"--replay-rate", "inf"}).rfind("--replay-rate: ", 0), 0u);
  EXPECT_EQ(Error({"--events", "5000001", "--sweep"}).rfind("--events: ", 0), 0u);
}

TEST_F(FlagsTest, UnwritableOutIsRefusedNamingTheFlag) {
  const std::string file = dir_.Sub("a-file");
  std::ofstream(file) << "x";
  EXPECT_EQ(Error({"--out", file}), "--out: '" + file + "' exists and is not a directory");
  EXPECT_EQ(Error({"--out", file + "/sub"}).rfind("--out: cannot create directory", 0), 0u);
  EXPECT_EQ(Error({"--out", "/proc/partkv-bench-out"}).rfind("--out: cannot create directory", 0),
            0u);
  EXPECT_EQ(Error({"--out", ""}), "--out: the directory name is empty");
  EXPECT_EQ(Error({"--work-dir", file}).rfind("--work-dir: ", 0), 0u);
}

TEST_F(FlagsTest, UnknownFlagOrMissingValueIsRefused) {
  EXPECT_NE(Error({"--eventz", "5"}).find("--eventz"), std::string::npos);
  EXPECT_NE(Error({"--events"}).find("--events"), std::string::npos);
}

TEST_F(FlagsTest, AnAttributeNameAloneIsAStrategyAndARowKey) {
  auto f = Parse({"--strategy", "orderDate", "--row-key", "orderId"});
  ASSERT_OK(f);
  EXPECT_EQ(f->strategies, std::vector<std::string>{"orderDate"});
  EXPECT_EQ(f->row_key, "orderId");
  // The strategy is concat(orderDate), labelled as typed.
  auto spec = UserStrategy(" orderDate ", 0);
  ASSERT_OK(spec);
  EXPECT_EQ(spec->label, "orderDate");
  EXPECT_EQ(spec->partition_key, *KeyStrategy::Parse("concat(orderDate)"));
  EXPECT_EQ(spec->explanation, "one partition per orderDate");
  // So in a workload file.
  const std::string workload = dir_.Sub("workload.json");
  std::ofstream(workload) << R"({"strategies": ["region"], "row_key": "orderId"})";
  f = Parse({"--workload", workload});
  ASSERT_OK(f);
  EXPECT_EQ(f->strategies, std::vector<std::string>{"region"});
  EXPECT_EQ(f->row_key, "orderId");
  // A bare name and its concat form are one strategy.
  EXPECT_EQ(Error({"--strategy", "orderDate", "--strategy", "concat(orderDate)"}),
            "--strategy: 'concat(orderDate,sep=-)' is given twice");
}

TEST_F(FlagsTest, ABadStrategyOrRowKeyIsRefusedListingTheForms) {
  std::string e = Error({"--strategy", "randm-suffix(a,3)"});
  EXPECT_EQ(e.rfind("--strategy: invalid key strategy 'randm-suffix(a,3)': unknown form "
                    "'randm-suffix'",
                    0),
            0u)
      << e;
  EXPECT_NE(e.find("FIELD alone, short for concat(FIELD)"), std::string::npos) << e;
  e = Error({"--row-key", "order id"});
  EXPECT_EQ(e.rfind("--row-key: invalid key strategy 'order id': ", 0), 0u) << e;
  EXPECT_NE(e.find("'order id' is not a property name"), std::string::npos) << e;
  e = Error({"--strategy", "md5-bits"});
  EXPECT_NE(e.find("md5-bits takes arguments"), std::string::npos) << e;
}

TEST_F(FlagsTest, HelpListsEveryFlag) {
  auto f = Parse({"--help"});
  ASSERT_OK(f);
  EXPECT_TRUE(f->help);
  for (const char* flag : {"--events", "--days", "--seed", "--partitions", "--replay-rate", "--out",
                           "--work-dir", "--sweep"}) {
    EXPECT_NE(f->help_text.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace partkv::compare
