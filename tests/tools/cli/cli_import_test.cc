// partkv import and export: validation of every line before any write, per-partition batches,
// failures that say what was written, progress only on a terminal, and the round trip
// export -> import -> export with every property type and non-ASCII keys.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "tests/tools/cli/cli_runner.h"

namespace partkv::testing {
namespace {

using nlohmann::json;

// Rows "pk/NNN" with a number, 1-based line i holding row i - 1.
std::string Rows(const std::string& pk, int count, int first = 0) {
  std::string out;
  for (int i = first; i < first + count; ++i) {
    char rk[16];
    std::snprintf(rk, sizeof rk, "%03d", i);
    out += R"({"PartitionKey":")" + pk + R"(","RowKey":")" + rk + R"(","n":)" + std::to_string(i) +
           "}\n";
  }
  return out;
}

class CliImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cli_.Run({"table", "create", "Orders", "--partitions", "4"}).exit_code, 0);
  }
  size_t Count(const std::string& table = "Orders") {
    RunResult r = cli_.Run({"export", table});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.OutLines().size();
  }

  TempDir dir_;
  CliRunner cli_{dir_};
};

// One entity of every property type, with non-ASCII keys and names, in Azure's JSON.
const char* const kAllTypes[] = {
    R"({"PartitionKey":"Zürich ☃","RowKey":"日本-0001","Bin@odata.type":"Edm.Binary","Bin":"AAH+/w==",)"
    R"("Count":-7,"Flag":true,"Id@odata.type":"Edm.Guid","Id":"c9da6455-213d-42c9-9a79-3e9149a57833",)"
    R"("Naïve":"naïve 😀 \"quoted\" \\ tab\t","Price":2.5,"Serial@odata.type":"Edm.Int64",)"
    R"("Serial":"-9223372036854775808","When@odata.type":"Edm.DateTime",)"
    R"("When":"2013-08-22T01:12:06.2608595Z","Whole@odata.type":"Edm.Double","Whole":3.0})",
    R"({"PartitionKey":"Zürich ☃","RowKey":"日本-0002","Inf@odata.type":"Edm.Double","Inf":"-Infinity",)"
    R"("Max@odata.type":"Edm.Int64","Max":"9223372036854775807","Tiny":5e-324,)"
    R"("Zero@odata.type":"Edm.Double","Zero":-0.0})",
    R"({"PartitionKey":"ascii","RowKey":"r","Empty":"","Old@odata.type":"Edm.DateTime",)"
    R"("Old":"1601-01-01T00:00:00.0000000Z","Big":2147483647,"Small":-2147483648})",
};

TEST_F(CliImportTest, ExportImportExportRoundTripsEveryType) {
  std::string input;
  for (const char* line : kAllTypes) input += std::string(line) + "\n";
  RunResult r = cli_.Run({"import", "Orders", cli_.WriteFile("in.jsonl", input)});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  RunResult first = cli_.Run({"export", "Orders"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(cli_.Run({"table", "create", "Copy"}).exit_code, 0);
  r = cli_.Run({"import", "Copy", cli_.WriteFile("first.jsonl", first.out)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult second = cli_.Run({"export", "Copy"});
  ASSERT_EQ(second.exit_code, 0) << second.err;

  std::vector<std::string> a = first.OutLines(), b = second.OutLines();
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_NE(a[i], b[i]);  // new ETags and Timestamps...
    EXPECT_EQ(WithoutSystemMembers(a[i]), WithoutSystemMembers(b[i]));  // ...and nothing else
  }
  // In (PartitionKey, RowKey) byte order, the input in the writer's canonical form (members
  // sorted, annotations first).
  EXPECT_EQ(
      WithoutSystemMembers(a[0]),
      R"({"PartitionKey":"Zürich ☃","RowKey":"日本-0001","Bin@odata.type":"Edm.Binary",)"
      R"("Bin":"AAH+/w==","Count":-7,"Flag":true,"Id@odata.type":"Edm.Guid",)"
      R"("Id":"c9da6455-213d-42c9-9a79-3e9149a57833",)"
      R"("Naïve":"naïve 😀 \"quoted\" \\ tab\t","Price":2.5,"Serial@odata.type":"Edm.Int64",)"
      R"("Serial":"-9223372036854775808","When@odata.type":"Edm.DateTime",)"
      R"("When":"2013-08-22T01:12:06.2608595Z","Whole@odata.type":"Edm.Double","Whole":3.0})");
  EXPECT_NE(a[1].find(R"("Zero@odata.type":"Edm.Double","Zero":-0.0)"), std::string::npos) << a[1];
}

TEST_F(CliImportTest, SummaryAlwaysProgressOnlyOnATerminal) {
  RunResult r = cli_.Run({"import", "Orders"}, Rows("p", 3));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(r.err.rfind("partkv: import: 3 of 3 rows written to Orders in ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos);

  RunOptions tty;
  tty.stderr_is_terminal = true;
  r = cli_.RunRaw({"--store", cli_.store(), "import", "Orders", "--mode", "upsert",
                   cli_.WriteFile("rows.jsonl", Rows("q", 250))},
                  tty);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("\r\x1b[Kvalidating: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\r\x1b[Kwriting: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("partkv: import: 250 of 250 rows written"), std::string::npos) << r.err;
}

TEST_F(CliImportTest, ABadLineStopsTheImportBeforeAnyWrite) {
  std::string input = Rows("p", 150) + R"({"PartitionKey":"p","RowKey":"x","big":3000000000})" +
                      "\n" + Rows("q", 10);
  RunResult r = cli_.Run({"import", "Orders", cli_.WriteFile("bad.jsonl", input)});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("partkv: error: InvalidArgument: line 151: property 'big': "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("nothing was written"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("partkv: import: 0 rows written"), std::string::npos) << r.err;
  EXPECT_EQ(Count(), 0u);

  // Limits are checked in the validation pass too (a key character Azure forbids).
  r = cli_.Run({"import", "Orders"}, Rows("p", 2) + R"({"PartitionKey":"a/b","RowKey":"r"})"
                                                    "\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("line 3: "), std::string::npos) << r.err;
  EXPECT_EQ(Count(), 0u);

  // A line that is not JSON at all, and a key the table requires.
  r = cli_.Run({"import", "Orders"}, "garbage\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("line 1: invalid JSON"), std::string::npos) << r.err;
  r = cli_.Run({"import", "Orders"}, R"({"RowKey":"r"})"
                                     "\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("line 1: property 'PartitionKey': missing"), std::string::npos) << r.err;
}

TEST_F(CliImportTest, AnExistingRowInInsertModeSaysWhatWasWritten) {
  ASSERT_EQ(cli_.Run({"insert", "Orders", R"({"PartitionKey":"q","RowKey":"049"})"}).exit_code, 0);
  // Lines 1-100: p (one batch); lines 101-200: q, whose line 150 exists.
  RunResult r =
      cli_.Run({"import", "Orders", cli_.WriteFile("in.jsonl", Rows("p", 100) + Rows("q", 100))});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("partkv: error: AlreadyExists: line 150: entity (PartitionKey 'q', RowKey "
                       "'049') already exists; 100 rows were written (every row before line 101), "
                       "none from line 101 on"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("partkv: import: 100 of 200 rows written"), std::string::npos) << r.err;
  EXPECT_EQ(Count(), 101u);

  // Upsert mode replaces instead.
  r = cli_.Run({"import", "Orders", "--mode", "upsert", dir_.Sub("in.jsonl")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Count(), 200u);
  EXPECT_EQ(cli_.Run({"import", "Orders", "--mode", "merge"}, "").exit_code, 2);
}

TEST_F(CliImportTest, RowsAreBatchedPerPartitionWithinTheLimits) {
  // 250 rows of one PartitionKey: three batches of at most 100.
  RunResult r = cli_.Run({"import", "Orders"}, Rows("p", 250) + Rows("q", 1));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("; 4 batches;"), std::string::npos) << r.err;

  // Rows of about 60 KB by Azure's size formula: a batch holds at most 4 MiB of them.
  std::string big(30000, 'x');
  std::string input;
  for (int i = 0; i < 80; ++i) {
    input += R"({"PartitionKey":"big","RowKey":")" + std::to_string(100 + i) + R"(","s":")" + big +
             "\"}\n";
  }
  r = cli_.Run({"import", "Orders", cli_.WriteFile("big.jsonl", input)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("80 of 80 rows written"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; 2 batches;"), std::string::npos) << r.err;
}

TEST_F(CliImportTest, TheSameRowTwiceIsTwoBatches) {
  std::string twice = R"({"PartitionKey":"p","RowKey":"r","n":1})"
                      "\n"
                      R"({"PartitionKey":"p","RowKey":"r","n":2})"
                      "\n";
  RunResult r = cli_.Run({"import", "Orders", "--mode", "upsert"}, twice);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult got = cli_.Run({"get", "Orders", "p", "r"});
  EXPECT_EQ(json::parse(got.out)["n"], 2);  // the later line wins
  r = cli_.Run({"import", "Orders"}, R"({"PartitionKey":"p","RowKey":"s"})"
                                     "\n"
                                     R"({"PartitionKey":"p","RowKey":"s"})"
                                     "\n");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("line 2: "), std::string::npos) << r.err;
}

TEST_F(CliImportTest, StdinBlankLinesAndCrlf) {
  RunResult r = cli_.Run({"import", "Orders", "-"},
                         "\r\n"
                         R"({"PartitionKey":"p","RowKey":"1"})"
                         "\r\n\n   \n"
                         R"({"PartitionKey":"p","RowKey":"2"})");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Count(), 2u);
  r = cli_.Run({"import", "Orders"},
               "\n"
               R"({"PartitionKey":"p")"
               "\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("line 2: "), std::string::npos) << r.err;
}

TEST_F(CliImportTest, MissingFileTableOrOverlongLine) {
  EXPECT_EQ(cli_.Run({"import", "Orders", dir_.Sub("nope.jsonl")}).exit_code, 3);
  EXPECT_EQ(cli_.Run({"import", "Missing"}, Rows("p", 1)).exit_code, 3);
  EXPECT_EQ(cli_.Run({"import", "Orders", dir_.path()}).exit_code, 2);
  std::string huge = Rows("p", 2) + std::string(17u << 20, 'x');
  RunResult r = cli_.Run({"import", "Orders", cli_.WriteFile("huge.jsonl", huge)});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("line 3: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("longer than 16 MiB"), std::string::npos) << r.err;
  EXPECT_EQ(Count(), 0u);
}

// Rows "d<i % keys>/NNN" of a round robin over `keys` PartitionKeys, 1-based line i + 1 holding
// row i.
std::string Interleaved(int count, int keys) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    char rk[16];
    std::snprintf(rk, sizeof rk, "%03d", i);
    out += R"({"PartitionKey":"d)" + std::to_string(i % keys) + R"(","RowKey":")" + rk +
           R"(","n":)" + std::to_string(i) + "}\n";
  }
  return out;
}

TEST_F(CliImportTest, InterleavedPartitionKeysAreWrittenInGroupsNotARowAtATime) {
  RunResult r = cli_.Run({"import", "Orders", cli_.WriteFile("in.jsonl", Interleaved(300, 7))});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Every row is a batch of its own (no two consecutive rows share a PartitionKey), and the
  // 300 rows are one atomic write.
  EXPECT_NE(r.err.find("300 of 300 rows written to Orders"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; 300 batches; 1 group;"), std::string::npos) << r.err;
  EXPECT_EQ(Count(), 300u);
  RunResult got = cli_.Run({"get", "Orders", "d3", "150"});
  ASSERT_EQ(got.exit_code, 0) << got.err;
  EXPECT_EQ(json::parse(got.out)["n"], 150);
}

TEST_F(CliImportTest, AnExistingRowAmongInterleavedRowsLeavesExactlyTheLinesBeforeIt) {
  ASSERT_EQ(
      cli_.Run({"insert", "Orders", R"({"PartitionKey":"d1","RowKey":"050","n":-1})"}).exit_code,
      0);
  // Line 51 holds d1/050; its batch is itself, so lines 1-50 are written and nothing after,
  // though rows after it sort before it by key.
  RunResult r = cli_.Run({"import", "Orders", cli_.WriteFile("in.jsonl", Interleaved(100, 7))});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("partkv: error: AlreadyExists: line 51: entity (PartitionKey 'd1', RowKey "
                       "'050') already exists; 50 rows were written (every row before line 51), "
                       "none from line 51 on"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(Count(), 51u);
  EXPECT_EQ(cli_.Run({"get", "Orders", "d0", "049"}).exit_code, 0);
  EXPECT_EQ(cli_.Run({"get", "Orders", "d2", "051"}).exit_code, 3);  // line 52
  EXPECT_EQ(cli_.Run({"get", "Orders", "d0", "056"}).exit_code, 3);  // line 57
}

TEST_F(CliImportTest, SchemeKeysAreComputedOnImport) {
  ASSERT_EQ(cli_.Run({"table", "create", "Events", "--pk", "hash-suffix(day,id,4)"}).exit_code, 0);
  std::string input;
  for (int i = 0; i < 20; ++i) {
    input += R"({"RowKey":")" + std::to_string(i) + R"(","day":"2024-01-02","id":)" +
             std::to_string(i) + "}\n";
  }
  RunResult r = cli_.Run({"import", "Events"}, input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult all = cli_.Run({"query-shards", "Events", "2024-01-02", "--all"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.OutLines().size(), 20u);
}

TEST_F(CliImportTest, ABarePropertyNameIsAScheme) {
  ASSERT_EQ(cli_.Run({"table", "create", "Events", "--pk", "day", "--rk", "id"}).exit_code, 0);
  std::string input;
  for (int i = 0; i < 5; ++i) {
    input += R"({"day":"2024-01-02","id":")" + std::to_string(i) + R"("})" + "\n";
  }
  // The schemes given to import, bare or as concat(...), are the table's.
  RunResult r = cli_.Run({"import", "Events", "--pk", "day", "--rk", "id"}, input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Count("Events"), 5u);
  RunResult got = cli_.Run({"get", "Events", "2024-01-02", "3"});
  ASSERT_EQ(got.exit_code, 0) << got.err;
  EXPECT_EQ(json::parse(got.out)["id"], "3");
  r = cli_.Run({"import", "Events", "--pk", "concat(day)", "--mode", "upsert"}, input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Count("Events"), 5u);
  // One that is not the table's is refused, bare as in full.
  r = cli_.Run({"import", "Events", "--pk", "id"}, input);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("has PartitionKey scheme concat(day,sep=-), not concat(id,sep=-)"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace partkv::testing
