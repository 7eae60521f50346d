// The partkv tool's frame: help, usage errors, where the store is, the one-line error format and
// the exit statuses; and the table commands.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "nlohmann/json.hpp"
#include "partkv/store.h"
#include "tests/testing/status_matchers.h"
#include "tests/tools/cli/cli_runner.h"
#include "tools/cli/exit_codes.h"

namespace partkv::testing {
namespace {

using nlohmann::json;

class CliTableTest : public ::testing::Test {
 protected:
  TempDir dir_;
  CliRunner cli_{dir_};
};

// Every error is exactly one line: "partkv: error: CODE: message".
void ExpectOneErrorLine(const RunResult& r, const std::string& code) {
  EXPECT_EQ(r.err.rfind("partkv: error: " + code + ": ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(CliTableTest, HelpListsEveryCommandAndExitsZero) {
  RunResult r = cli_.RunRaw({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* command :
       {"table", "insert", "upsert", "replace", "merge", "delete", "get", "batch", "query",
        "query-shards", "export", "import", "stats", "analyze"}) {
    EXPECT_NE(r.out.find("  " + std::string(command) + " "), std::string::npos) << command;
  }
  EXPECT_NE(r.out.find("Exit status"), std::string::npos);
  EXPECT_TRUE(r.err.empty());
}

TEST_F(CliTableTest, CommandHelpDescribesItsArguments) {
  RunResult r = cli_.RunRaw({"replace", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--if-match"), std::string::npos) << r.out;
  r = cli_.RunRaw({"table", "create", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--partitions"), std::string::npos) << r.out;
}

TEST_F(CliTableTest, UsageErrorsExitTwoWithOneLine) {
  RunResult r = cli_.RunRaw({});
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r, "InvalidArgument");

  r = cli_.RunRaw({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r, "InvalidArgument");
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos) << r.err;

  r = cli_.Run({"get", "Orders"});  // PK and RK missing
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r, "InvalidArgument");
  EXPECT_NE(r.err.find("partkv get --help"), std::string::npos) << r.err;

  r = cli_.Run({"query", "Orders", "--top", "many"});
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r, "InvalidArgument");

  r = cli_.Run({"query", "Orders", "--rk-ge", "a", "--rk-gt", "b"});
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r, "InvalidArgument");
}

TEST_F(CliTableTest, StoreComesFromFlagThenEnvironmentThenDefault) {
  // --store
  ASSERT_EQ(cli_.RunRaw({"--store", dir_.Sub("flag"), "table", "create", "Flag"}).exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(dir_.Sub("flag")));
  // $PARTKV_STORE
  RunOptions env;
  env.env["PARTKV_STORE"] = dir_.Sub("env");
  ASSERT_EQ(cli_.RunRaw({"table", "create", "Env"}, env).exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(dir_.Sub("env")));
  // --store wins over the environment.
  RunResult r = cli_.RunRaw({"--store", dir_.Sub("flag"), "table", "list"}, env);
  EXPECT_NE(r.out.find("\"Flag\""), std::string::npos) << r.out;
  // ./partkv-data in the working directory.
  ASSERT_EQ(cli_.RunRaw({"table", "create", "Default"}).exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(dir_.Sub("partkv-data")));
}

TEST_F(CliTableTest, OnlyTableCreateCreatesAStore) {
  RunResult r = cli_.Run({"table", "list"});
  EXPECT_EQ(r.exit_code, 3);
  ExpectOneErrorLine(r, "NotFound");
  EXPECT_NE(r.err.find("no store at"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(cli_.store()));
}

TEST_F(CliTableTest, CreateListDrop) {
  RunResult r = cli_.Run({"table", "create", "Orders", "--partitions", "4", "--pk",
                          "hash-suffix(date,OrderId,8)", "--rk", "desc-ticks(time)"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json created = json::parse(r.out);
  EXPECT_EQ(created["TableName"], "Orders");
  EXPECT_EQ(created["physical_partitions"], 4);
  EXPECT_EQ(created["partition_key_scheme"], "hash-suffix(date,OrderId,8,hash=xxh3)");
  EXPECT_EQ(created["row_key_scheme"], "desc-ticks(time)");
  EXPECT_EQ(created["profile"], "azure-table");

  ASSERT_EQ(cli_.Run({"table", "create", "Audit"}).exit_code, 0);
  r = cli_.Run({"table", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json list = json::parse(r.out);
  ASSERT_EQ(list["value"].size(), 2u);
  EXPECT_EQ(list["value"][0]["TableName"], "Audit");
  EXPECT_EQ(list["value"][0]["physical_partitions"], 16);
  EXPECT_TRUE(list["value"][0]["partition_key_scheme"].is_null());
  EXPECT_EQ(list["value"][1]["TableName"], "Orders");

  r = cli_.Run({"table", "drop", "Orders"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  list = json::parse(cli_.Run({"table", "list"}).out);
  ASSERT_EQ(list["value"].size(), 1u);
}

TEST_F(CliTableTest, TableErrorsHaveTheirExitStatus) {
  ASSERT_EQ(cli_.Run({"table", "create", "Orders"}).exit_code, 0);
  RunResult r = cli_.Run({"table", "create", "orders"});  // names compare case-insensitively
  EXPECT_EQ(r.exit_code, 4);
  ExpectOneErrorLine(r, "AlreadyExists");

  r = cli_.Run({"table", "drop", "Missing"});
  EXPECT_EQ(r.exit_code, 3);
  ExpectOneErrorLine(r, "NotFound");

  r = cli_.Run({"table", "create", "a-b"});
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r, "InvalidArgument");

  r = cli_.Run({"table", "create", "Many", "--partitions", "5000"});
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r, "InvalidArgument");

  r = cli_.Run({"table", "create", "Keyed", "--pk", "hash-suffix(date)"});
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r, "InvalidArgument");
  EXPECT_NE(r.err.find("--pk"), std::string::npos) << r.err;
}

TEST_F(CliTableTest, APropertyNameAloneIsAKeyScheme) {
  RunResult r = cli_.Run({"table", "create", "Orders", "--pk", "date", "--rk", " orderId "});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json created = json::parse(r.out);
  EXPECT_EQ(created["partition_key_scheme"], "concat(date,sep=-)");
  EXPECT_EQ(created["row_key_scheme"], "concat(orderId,sep=-)");

  // The keys it computes are the property's own text.
  r = cli_.Run({"insert", "Orders", R"({"date":"2024-05-06","orderId":"o-17","n":1})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json inserted = json::parse(r.out);
  EXPECT_EQ(inserted["PartitionKey"], "2024-05-06");
  EXPECT_EQ(inserted["RowKey"], "o-17");

  // A name that is not a property name, or a form's name without its arguments, is refused.
  r = cli_.Run({"table", "create", "Keyed", "--pk", "order date"});
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r, "InvalidArgument");
  EXPECT_NE(r.err.find("--pk"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'order date' is not a property name"), std::string::npos) << r.err;
  r = cli_.Run({"table", "create", "Keyed", "--rk", "randm-suffix(a,3)"});
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r, "InvalidArgument");
  EXPECT_NE(r.err.find("--rk"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unknown form 'randm-suffix'"), std::string::npos) << r.err;
  r = cli_.Run({"table", "create", "Keyed", "--pk", "concat"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("concat takes arguments"), std::string::npos) << r.err;
}

TEST_F(CliTableTest, ProfilesAndThrottlingAreStoredWithTheTable) {
  json t = json::parse(cli_.Run({"table", "create", "Plain"}).out);
  EXPECT_EQ(t["profile"], "azure-table");
  EXPECT_EQ(t["throttling"], false);
  for (const char* profile : {"azure-table", "cosmos", "dynamodb", "none"}) {
    std::string name = std::string("T") + (profile[0] == 'a' ? "azure" : profile);
    RunResult r = cli_.Run({"table", "create", name, "--profile", profile, "--throttling"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["profile"], profile);
    // "none" has no budgets to emulate.
    EXPECT_EQ(json::parse(r.out)["throttling"], std::string(profile) != "none") << profile;
  }
  RunResult r = cli_.Run({"table", "create", "Other", "--profile", "bigtable"});
  EXPECT_EQ(r.exit_code, 2);
  ExpectOneErrorLine(r, "InvalidArgument");
  EXPECT_NE(r.err.find("--profile: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("dynamodb"), std::string::npos) << r.err;  // the accepted names
  EXPECT_EQ(json::parse(cli_.Run({"table", "list"}).out)["value"].size(), 5u);
}

TEST_F(CliTableTest, ImportWaitsOutThrottlingOtherCommandsExitSix) {
  ASSERT_EQ(cli_.Run({"table", "create", "Hot", "--throttling"}).exit_code, 0);
  // 5,000 rows of one PartitionKey: more than azure-table's 2,000 entities/s, so import waits.
  std::string rows;
  for (int i = 0; i < 5000; ++i) {
    rows += R"({"PartitionKey":"hot","RowKey":")" + std::to_string(10000 + i) + "\"}\n";
  }
  RunResult r = cli_.Run({"import", "Hot"}, rows);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("5000 of 5000 rows written"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; throttled "), std::string::npos) << r.err;

  // DynamoDB: 30 items of about 100 KB cost 3,000 WCU, three times a new partition's 1,000.
  ASSERT_EQ(cli_.Run({"table", "create", "Dyn", "--profile", "dynamodb", "--throttling"}).exit_code,
            0);
  std::string ops;
  std::string big(100000, 'x');
  for (int i = 0; i < 30; ++i) {
    ops += R"({"op":"insert","entity":{"PartitionKey":"hot","RowKey":")" + std::to_string(i) +
           R"(","s":")" + big + "\"}}\n";
  }
  r = cli_.Run({"batch", "Dyn"}, ops);
  EXPECT_EQ(r.exit_code, 6) << r.err;
  ExpectOneErrorLine(r, "Throttled");
  EXPECT_NE(r.err.find("retry after "), std::string::npos) << r.err;
  EXPECT_EQ(cli_.Run({"get", "Dyn", "hot", "0"}).exit_code, 3);  // nothing was written
}

TEST_F(CliTableTest, StoreHeldByAnotherProcessExitsOne) {
  ASSERT_EQ(cli_.Run({"table", "create", "Orders"}).exit_code, 0);
  auto held = Store::Open(cli_.store());
  ASSERT_OK(held);
  RunResult r = cli_.Run({"table", "list"});
  EXPECT_EQ(r.exit_code, 1);
  ExpectOneErrorLine(r, "Busy");
}

TEST_F(CliTableTest, EveryStatusCodeHasItsExitStatus) {
  using C = Status::Code;
  EXPECT_EQ(cli::ExitCodeFor(C::kOk), 0);
  EXPECT_EQ(cli::ExitCodeFor(C::kInvalidArgument), 2);
  EXPECT_EQ(cli::ExitCodeFor(C::kNotFound), 3);
  EXPECT_EQ(cli::ExitCodeFor(C::kAlreadyExists), 4);
  EXPECT_EQ(cli::ExitCodeFor(C::kPreconditionFailed), 5);
  // No command can be throttled until the cloud profiles throttle; the mapping is fixed here.
  EXPECT_EQ(cli::ExitCodeFor(C::kThrottled), 6);
  EXPECT_EQ(cli::ExitCodeFor(C::kCorruption), 1);
  EXPECT_EQ(cli::ExitCodeFor(C::kIOError), 1);
  EXPECT_EQ(cli::ExitCodeFor(C::kBusy), 1);
  EXPECT_EQ(cli::ExitCodeFor(C::kPermissionDenied), 7);
}

}  // namespace
}  // namespace partkv::testing
