// partkv copy between two local stores: one table, --all-tables, --as, --filter and --select,
// re-keying, the --json report, --verify and --verify-only with exit status 8, the exit statuses
// of the errors, and the default checkpoint beside the destination store.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "tests/tools/cli/cli_runner.h"
#include "tools/cli/exit_codes.h"

namespace partkv::testing {
namespace {

using cli::kExitAlreadyExists;
using cli::kExitDiffers;
using cli::kExitInvalidArgument;
using cli::kExitNotFound;
using cli::kExitOk;
using nlohmann::json;

// Rows over five PartitionKeys "p0".."p4", RowKeys "000".."NNN", a number and a kind.
std::string Rows(int count) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    char rk[16];
    std::snprintf(rk, sizeof rk, "%03d", i);
    out += R"({"PartitionKey":"p)" + std::to_string(i % 5) + R"(","RowKey":")" + rk + R"(","n":)" +
           std::to_string(i) + R"(,"kind":")" + (i % 2 == 0 ? "even" : "odd") + "\"}\n";
  }
  return out;
}

// One entity of every property type, with non-ASCII and quoted keys.
const char kAllTypes[] =
    R"({"PartitionKey":"Zürich ☃ 'q'","RowKey":"日本 \"1\"","Bin@odata.type":"Edm.Binary",)"
    R"("Bin":"AAH+/w==","Count":-7,"Flag":true,"Id@odata.type":"Edm.Guid",)"
    R"("Id":"c9da6455-213d-42c9-9a79-3e9149a57833","Text":"","Price":2.5,)"
    R"("Serial@odata.type":"Edm.Int64","Serial":"-9223372036854775808",)"
    R"("When@odata.type":"Edm.DateTime","When":"2013-08-22T01:12:06.2608595Z",)"
    R"("Whole@odata.type":"Edm.Double","Whole":3.0,"Zero@odata.type":"Edm.Double","Zero":-0.0})"
    "\n";

constexpr int kRows = 40;

class CliCopyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RunResult r = cli_.Run({"table", "create", "Orders", "--partitions", "4"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = cli_.Run({"import", "Orders", cli_.WriteFile("orders.jsonl", Rows(kRows) + kAllTypes)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // partkv copy --from <store> --to <backup> args...
  RunResult Copy(const std::vector<std::string>& args) const {
    std::vector<std::string> all = {"copy", "--from", cli_.store(), "--to", backup_};
    all.insert(all.end(), args.begin(), args.end());
    return cli_.RunRaw(all);
  }
  // partkv --store <store> args...
  RunResult At(const std::string& store, const std::vector<std::string>& args,
               const std::string& input = "") const {
    std::vector<std::string> all = {"--store", store};
    all.insert(all.end(), args.begin(), args.end());
    RunOptions options;
    options.input = input;
    return cli_.RunRaw(all, options);
  }
  // The table's entities without ETags and Timestamps, sorted.
  std::vector<std::string> Export(const std::string& store, const std::string& table) const {
    RunResult r = At(store, {"export", table});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> lines;
    for (const std::string& line : r.OutLines()) lines.push_back(WithoutSystemMembers(line));
    std::sort(lines.begin(), lines.end());
    return lines;
  }
  std::vector<std::string> TableNames(const std::string& store) const {
    RunResult r = At(store, {"table", "list"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> names;
    if (r.exit_code != 0) return names;
    const json list = json::parse(r.out);
    for (const json& t : list["value"]) names.push_back(t["TableName"]);
    return names;
  }
  // Where a copy into `backup_` keeps its checkpoint by default: beside the store directory.
  std::string DefaultCheckpoint(const std::string& table) const {
    return dir_.Sub("backup." + table + ".partkv-copy");
  }

  TempDir dir_;
  CliRunner cli_{dir_};
  std::string backup_ = dir_.Sub("backup");
};

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(CliCopyTest, CopiesOneTableExactlyIntoANewStore) {
  RunResult r = Copy({"Orders"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(Contains(r.err, "partkv: copy: Orders -> Orders: 41 rows read, 41 written")) << r.err;
  const std::vector<std::string> source = Export(cli_.store(), "Orders");
  ASSERT_EQ(source.size(), kRows + 1u);
  EXPECT_EQ(Export(backup_, "Orders"), source);
  EXPECT_EQ(TableNames(backup_), std::vector<std::string>{"Orders"});
  // Created like the source: its physical partitions.
  RunResult list = At(backup_, {"table", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(json::parse(list.out)["value"][0]["physical_partitions"], 4);
  EXPECT_FALSE(std::filesystem::exists(DefaultCheckpoint("Orders")));
}

TEST_F(CliCopyTest, AllTablesCopiesEveryTable) {
  ASSERT_EQ(cli_.Run({"table", "create", "Audit"}).exit_code, 0);
  ASSERT_EQ(
      cli_.Run({"insert", "Audit", R"({"PartitionKey":"a","RowKey":"1","what":"x"})"}).exit_code,
      0);
  ASSERT_EQ(cli_.Run({"table", "create", "Empty"}).exit_code, 0);
  RunResult r = Copy({"--all-tables"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_EQ(TableNames(backup_), (std::vector<std::string>{"Audit", "Empty", "Orders"}));
  for (const char* table : {"Audit", "Empty", "Orders"}) {
    EXPECT_EQ(Export(backup_, table), Export(cli_.store(), table)) << table;
    EXPECT_FALSE(std::filesystem::exists(DefaultCheckpoint(table))) << table;
  }
  // Tables named and --all-tables, or neither: a usage error.
  EXPECT_EQ(Copy({"Orders", "--all-tables"}).exit_code, kExitInvalidArgument);
  EXPECT_EQ(Copy({}).exit_code, kExitInvalidArgument);
}

TEST_F(CliCopyTest, AsNamesTheDestinationTable) {
  RunResult r = Copy({"Orders", "--as", "Archive"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_EQ(TableNames(backup_), std::vector<std::string>{"Archive"});
  EXPECT_EQ(Export(backup_, "Archive"), Export(cli_.store(), "Orders"));
  EXPECT_FALSE(std::filesystem::exists(DefaultCheckpoint("Archive")));
  // --as names one table's destination.
  r = Copy({"--all-tables", "--as", "Archive2"});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument);
  EXPECT_TRUE(Contains(r.err, "--as")) << r.err;
  EXPECT_EQ(TableNames(backup_), std::vector<std::string>{"Archive"});
}

TEST_F(CliCopyTest, FilterAndSelectCopyWhatTheySay) {
  RunResult r = Copy({"Orders", "--as", "Small", "--filter", "n lt 10 and kind eq 'even'",
                      "--select", "n", "--verify"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  RunResult out = At(backup_, {"export", "Small"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const std::vector<std::string> lines = out.OutLines();
  ASSERT_EQ(lines.size(), 5u);
  for (const std::string& line : lines) {
    const json e = json::parse(line);
    EXPECT_EQ(e["n"].get<int>() % 2, 0) << line;
    EXPECT_LT(e["n"].get<int>(), 10) << line;
    EXPECT_FALSE(e.contains("kind")) << line;
  }
}

TEST_F(CliCopyTest, JsonReportsEveryFieldAndVerifyIsCleanWithExitZero) {
  RunResult r = Copy({"Orders", "--json", "--verify", "--parallel", "2"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc["tables"].size(), 1u) << r.out;
  const json& t = doc["tables"][0];
  EXPECT_EQ(t["table"], "Orders");
  EXPECT_EQ(t["destination_table"], "Orders");
  EXPECT_EQ(t["rows_read"], kRows + 1);
  EXPECT_EQ(t["rows_written"], kRows + 1);
  EXPECT_EQ(t["rows_skipped"], 0);
  EXPECT_EQ(t["rows_failed"], 0);
  EXPECT_EQ(t["rekey_collisions"], 0);
  EXPECT_EQ(t["retries"], 0);
  EXPECT_EQ(t["units"], 4);
  EXPECT_EQ(t["streams"], 2);
  ASSERT_TRUE(t["throttled_wait_seconds"].is_number()) << r.out;
  EXPECT_EQ(t["throttled_wait_seconds"].get<double>(), 0.0);
  ASSERT_TRUE(t["seconds"].is_number()) << r.out;
  EXPECT_GE(t["seconds"].get<double>(), 0.0);
  EXPECT_EQ(t["ok"], true);
  EXPECT_FALSE(t.contains("error"));
  const json& v = t["verify"];
  EXPECT_EQ(v["source_rows"], kRows + 1);
  EXPECT_EQ(v["destination_rows"], kRows + 1);
  EXPECT_EQ(v["missing"], 0);
  EXPECT_EQ(v["extra"], 0);
  EXPECT_EQ(v["different"], 0);
  EXPECT_EQ(v["first_missing"], json::array());
  EXPECT_EQ(v["first_extra"], json::array());
  EXPECT_EQ(v["first_different"], json::array());
  EXPECT_TRUE(Contains(r.err,
                       "partkv: verify: Orders -> Orders: 41 source rows, all in the "
                       "destination"))
      << r.err;
}

TEST_F(CliCopyTest, VerifyOnlyAfterTamperingExitsEightListingTheKeys) {
  ASSERT_EQ(Copy({"Orders"}).exit_code, kExitOk);
  ASSERT_EQ(At(backup_, {"delete", "Orders", "p1", "001"}).exit_code, 0);
  ASSERT_EQ(At(backup_, {"insert", "Orders", R"({"PartitionKey":"p9","RowKey":"x"})"}).exit_code,
            0);
  ASSERT_EQ(At(backup_,
               {"upsert", "Orders", R"({"PartitionKey":"p2","RowKey":"002","n":-2,"kind":"even"})"})
                .exit_code,
            0);
  const std::vector<std::string> before = Export(backup_, "Orders");

  RunResult r = Copy({"Orders", "--verify-only"});
  EXPECT_EQ(r.exit_code, kExitDiffers) << r.err;
  EXPECT_TRUE(Contains(r.err, "1 missing, 1 extra, 1 different")) << r.err;
  EXPECT_TRUE(Contains(r.err, R"(missing: ("p1", "001"))")) << r.err;
  EXPECT_TRUE(Contains(r.err, R"(extra: ("p9", "x"))")) << r.err;
  EXPECT_TRUE(Contains(r.err, R"(different: ("p2", "002"))")) << r.err;
  EXPECT_FALSE(Contains(r.err, "partkv: copy:")) << r.err;  // nothing copied

  r = Copy({"Orders", "--verify-only", "--json"});
  EXPECT_EQ(r.exit_code, kExitDiffers) << r.err;
  const json t = json::parse(r.out)["tables"][0];
  EXPECT_FALSE(t.contains("rows_written")) << r.out;
  EXPECT_EQ(t["verify"]["missing"], 1);
  EXPECT_EQ(t["verify"]["extra"], 1);
  EXPECT_EQ(t["verify"]["different"], 1);
  EXPECT_EQ(t["verify"]["first_missing"], json::parse(R"([["p1","001"]])"));
  EXPECT_EQ(t["verify"]["first_missing_source"], json::parse(R"([["p1","001"]])"));
  EXPECT_EQ(t["verify"]["first_extra"], json::parse(R"([["p9","x"]])"));
  EXPECT_EQ(t["verify"]["first_different"], json::parse(R"([["p2","002"]])"));

  // --show bounds the keys listed.
  ASSERT_EQ(At(backup_, {"delete", "Orders", "p3", "003"}).exit_code, 0);
  r = Copy({"Orders", "--verify-only", "--show", "1"});
  EXPECT_EQ(r.exit_code, kExitDiffers) << r.err;
  EXPECT_TRUE(Contains(r.err, "2 missing")) << r.err;
  // One of the two, in the order the source's partitions were read.
  EXPECT_NE(Contains(r.err, R"(missing: ("p1", "001"), ...)"),
            Contains(r.err, R"(missing: ("p3", "003"), ...)"))
      << r.err;

  // Verifying wrote nothing.
  std::vector<std::string> after_delete = before;
  after_delete.erase(std::remove_if(after_delete.begin(), after_delete.end(),
                                    [](const std::string& l) {
                                      return Contains(l, R"("PartitionKey":"p3","RowKey":"003")");
                                    }),
                     after_delete.end());
  EXPECT_EQ(Export(backup_, "Orders"), after_delete);
  EXPECT_FALSE(std::filesystem::exists(DefaultCheckpoint("Orders")));
}

TEST_F(CliCopyTest, UnknownTableExitsThreeNamingIt) {
  RunResult r = Copy({"Nope"});
  EXPECT_EQ(r.exit_code, kExitNotFound) << r.err;
  EXPECT_TRUE(Contains(r.err, "partkv: error: NotFound: ")) << r.err;
  EXPECT_TRUE(Contains(r.err, "'Nope'")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(DefaultCheckpoint("Nope")));
}

TEST_F(CliCopyTest, DestinationRowInInsertModeExitsFourNamingItAndResumes) {
  ASSERT_EQ(At(backup_, {"table", "create", "Orders"}).exit_code, 0);
  ASSERT_EQ(
      At(backup_, {"insert", "Orders", R"({"PartitionKey":"p2","RowKey":"007","n":-1})"}).exit_code,
      0);
  RunResult r = Copy({"Orders", "--json"});
  EXPECT_EQ(r.exit_code, kExitAlreadyExists) << r.err;
  EXPECT_TRUE(Contains(r.err, "partkv: error: AlreadyExists: ")) << r.err;
  EXPECT_TRUE(Contains(r.err, R"(("p2", "007"))")) << r.err;
  // The checkpoint is kept beside the destination store, and the message says how to go on.
  const std::string checkpoint = DefaultCheckpoint("Orders");
  EXPECT_TRUE(std::filesystem::exists(checkpoint));
  EXPECT_TRUE(Contains(r.err, "--resume")) << r.err;
  EXPECT_TRUE(Contains(r.err, checkpoint)) << r.err;
  const json t = json::parse(r.out)["tables"][0];
  EXPECT_EQ(t["ok"], false);
  EXPECT_EQ(t["error"]["code"], "AlreadyExists");
  EXPECT_EQ(t["rows_failed"], 1);

  // Without --resume the checkpoint is in the way.
  r = Copy({"Orders"});
  EXPECT_EQ(r.exit_code, kExitAlreadyExists) << r.err;
  EXPECT_TRUE(Contains(r.err, checkpoint)) << r.err;

  ASSERT_EQ(At(backup_, {"delete", "Orders", "p2", "007"}).exit_code, 0);
  r = Copy({"Orders", "--resume", "--verify"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_FALSE(std::filesystem::exists(checkpoint));
  EXPECT_EQ(Export(backup_, "Orders"), Export(cli_.store(), "Orders"));
}

TEST_F(CliCopyTest, UpsertModeOverwritesWhereInsertStops) {
  ASSERT_EQ(At(backup_, {"table", "create", "Orders"}).exit_code, 0);
  ASSERT_EQ(
      At(backup_, {"insert", "Orders", R"({"PartitionKey":"p2","RowKey":"007","n":-1})"}).exit_code,
      0);
  RunResult r = Copy({"Orders", "--mode", "upsert", "--verify"});
  EXPECT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_EQ(Export(backup_, "Orders"), Export(cli_.store(), "Orders"));
  EXPECT_EQ(Copy({"Orders", "--mode", "replace"}).exit_code, kExitInvalidArgument);
}

TEST_F(CliCopyTest, ExplicitCheckpointForSeveralTablesIsOnePerTable) {
  ASSERT_EQ(cli_.Run({"table", "create", "Audit"}).exit_code, 0);
  ASSERT_EQ(cli_.Run({"insert", "Audit", R"({"PartitionKey":"a","RowKey":"1"})"}).exit_code, 0);
  ASSERT_EQ(At(backup_, {"table", "create", "Orders"}).exit_code, 0);
  ASSERT_EQ(At(backup_, {"insert", "Orders", R"({"PartitionKey":"p0","RowKey":"000"})"}).exit_code,
            0);
  const std::string checkpoint = dir_.Sub("cp");
  RunResult r = Copy({"--all-tables", "--checkpoint", checkpoint});
  EXPECT_EQ(r.exit_code, kExitAlreadyExists) << r.err;
  EXPECT_FALSE(std::filesystem::exists(checkpoint + ".Audit"));  // copied, then deleted
  EXPECT_TRUE(std::filesystem::exists(checkpoint + ".Orders"));
  EXPECT_FALSE(std::filesystem::exists(checkpoint));
  EXPECT_FALSE(std::filesystem::exists(DefaultCheckpoint("Orders")));
}

TEST_F(CliCopyTest, ReKeyingCreatesTheDestinationWithTheSchemeAndVerifies) {
  RunResult r =
      Copy({"Orders", "--as", "ByKind", "--filter", "kind ne ''", "--partition-key",
            "hash-suffix(kind,RowKey,4)", "--keep-keys-as", "OldPk,OldRk", "--verify", "--json"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  const json t = json::parse(r.out)["tables"][0];
  EXPECT_EQ(t["rows_written"], kRows);
  EXPECT_EQ(t["verify"]["missing"], 0);
  EXPECT_EQ(t["verify"]["different"], 0);
  RunResult list = At(backup_, {"table", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(json::parse(list.out)["value"][0]["partition_key_scheme"],
            "hash-suffix(kind,RowKey,4,hash=xxh3)");
  RunResult got = At(backup_, {"query", "ByKind", "--filter", "OldRk eq '007'"});
  ASSERT_EQ(got.exit_code, 0) << got.err;
  const json page = json::parse(got.out);
  ASSERT_EQ(page["value"].size(), 1u) << got.out;
  EXPECT_EQ(page["value"][0]["OldPk"], "p2");
  EXPECT_EQ(page["value"][0]["RowKey"], "007");
  EXPECT_EQ(page["value"][0]["PartitionKey"].get<std::string>().rfind("odd.", 0), 0u) << got.out;
}

TEST_F(CliCopyTest, BadSchemeExitsTwo) {
  RunResult r = Copy({"Orders", "--row-key", "nonsense(kind"});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument) << r.err;
  EXPECT_TRUE(Contains(r.err, "partkv: error: InvalidArgument: ")) << r.err;
  EXPECT_TRUE(Contains(r.err, "--row-key")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(backup_));  // refused before any store is opened
  r = Copy({"Orders", "--partition-key", "random-suffix(kind,4)"});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument) << r.err;
  EXPECT_TRUE(Contains(r.err, "random-suffix")) << r.err;
  EXPECT_TRUE(Contains(r.err, "hash-suffix")) << r.err;  // what to use instead
  EXPECT_FALSE(std::filesystem::exists(DefaultCheckpoint("Orders")));
}

// A copy refused for its options (exit 2) leaves the destination as it was: no store directory
// made, no table created — least of all one with the refused scheme.
TEST_F(CliCopyTest, RefusedOptionsCreateNoDestination) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"Orders", "--partition-key", "random-suffix(kind,4)"},
        std::vector<std::string>{"Orders", "--keep-keys-as", "OldPk,OldRk"},
        std::vector<std::string>{"Orders", "--select", "not a name"}}) {
    SCOPED_TRACE(args[2]);
    RunResult r = Copy(args);
    EXPECT_EQ(r.exit_code, kExitInvalidArgument) << r.err;
    EXPECT_FALSE(std::filesystem::exists(backup_));
  }
  // Into a store that exists: no table appears in it.
  ASSERT_EQ(At(backup_, {"table", "create", "Other"}).exit_code, 0);
  RunResult r = Copy({"Orders", "--partition-key", "random-suffix(kind,4)"});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument) << r.err;
  EXPECT_EQ(TableNames(backup_), std::vector<std::string>{"Other"});
}

// --verify-only compares and writes nothing: a destination without the table is not given one.
TEST_F(CliCopyTest, VerifyOnlyCreatesNoDestinationTable) {
  ASSERT_EQ(At(backup_, {"table", "create", "Other"}).exit_code, 0);
  RunResult r = Copy({"Orders", "--verify-only"});
  EXPECT_NE(r.exit_code, kExitOk) << r.err;
  EXPECT_TRUE(Contains(r.err, "Orders")) << r.err;
  EXPECT_EQ(TableNames(backup_), std::vector<std::string>{"Other"});
}

TEST_F(CliCopyTest, KeepKeysAsWithOneNameExitsTwo) {
  RunResult r = Copy({"Orders", "--partition-key", "concat(kind)", "--keep-keys-as", "OldPk"});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument) << r.err;
  EXPECT_TRUE(Contains(r.err, "--keep-keys-as")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(backup_));
  r = Copy({"Orders", "--partition-key", "concat(kind)", "--keep-keys-as", "A,B,C"});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument) << r.err;
  // Without re-keying, two names are refused as well.
  r = Copy({"Orders", "--keep-keys-as", "OldPk,OldRk"});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument) << r.err;
  EXPECT_TRUE(Contains(r.err, "keep-keys-as")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(DefaultCheckpoint("Orders")));
}

TEST_F(CliCopyTest, ResumeWithNoCheckpointExitsThree) {
  RunResult r = Copy({"Orders", "--resume"});
  EXPECT_EQ(r.exit_code, kExitNotFound) << r.err;
  EXPECT_TRUE(Contains(r.err, DefaultCheckpoint("Orders"))) << r.err;
  r = Copy({"Orders", "--resume", "--checkpoint", dir_.Sub("nothing-here")});
  EXPECT_EQ(r.exit_code, kExitNotFound) << r.err;
  EXPECT_TRUE(Contains(r.err, dir_.Sub("nothing-here"))) << r.err;
}

// Stops a copy into `to` at an entity its re-keying cannot key, fixes the entity, and runs the
// same command line again with --resume --verify: the exit status of that run.
int StopFixAndResume(const CliRunner& cli, const std::string& to) {
  if (cli.Run({"insert", "Orders", R"({"PartitionKey":"p0","RowKey":"500","n":500})"}).exit_code !=
      0) {  // no kind: cannot be keyed by it
    return -1;
  }
  const std::vector<std::string> args = {
      "copy",     "--from", cli.store(),       "--to",        to, "Orders",
      "--filter", "n ge 0", "--partition-key", "concat(kind)"};
  RunResult r = cli.RunRaw(args);
  EXPECT_EQ(r.exit_code, kExitInvalidArgument) << r.err;
  EXPECT_TRUE(Contains(r.err, R"(("p0", "500"))")) << r.err;
  if (cli.Run({"upsert", "Orders", R"({"PartitionKey":"p0","RowKey":"500","n":500,"kind":"even"})"})
          .exit_code != 0) {
    return -1;
  }
  std::vector<std::string> resume = args;
  resume.push_back("--resume");
  resume.push_back("--verify");
  r = cli.RunRaw(resume);
  EXPECT_EQ(r.exit_code, kExitOk) << r.err;
  return r.exit_code;
}

// A copy stopped by an entity its re-keying cannot key resumes once the entity is fixed, with the
// same command line, the first run being the one that created the destination store.
TEST_F(CliCopyTest, ResumeWithTheSameCommandLineAfterTheFirstRunCreatedTheDestination) {
  EXPECT_EQ(StopFixAndResume(cli_, dir_.Sub("plain")), kExitOk);
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("plain.Orders.partkv-copy")));
}

// The same with `--to DIR/` (a trailing slash, as a shell's completion writes a directory).
TEST_F(CliCopyTest, ResumeWithATrailingSlashOnTheDestination) {
  EXPECT_EQ(StopFixAndResume(cli_, dir_.Sub("slash") + "/"), kExitOk);
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("slash.Orders.partkv-copy")));
}

}  // namespace
}  // namespace partkv::testing
