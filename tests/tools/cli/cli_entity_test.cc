// partkv insert | upsert | replace | merge | delete | get | batch, driven as a subprocess.

#include <gtest/gtest.h>

#include <string>

#include "nlohmann/json.hpp"
#include "tests/tools/cli/cli_runner.h"

namespace partkv::testing {
namespace {

using nlohmann::json;

class CliEntityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RunResult r = cli_.Run({"table", "create", "Orders", "--partitions", "4"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // The stored entity without its ETag and Timestamp, or "NOT_FOUND".
  std::string Get(const std::string& pk, const std::string& rk) {
    RunResult r = cli_.Run({"get", "Orders", pk, rk});
    if (r.exit_code == 3) return "NOT_FOUND";
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return WithoutSystemMembers(r.out.substr(0, r.out.find('\n')));
  }
  std::string EtagOf(const RunResult& r) { return json::parse(r.out)["odata.etag"]; }

  TempDir dir_;
  CliRunner cli_{dir_};
};

TEST_F(CliEntityTest, InsertPrintsTheWrittenEntityWithItsEtag) {
  RunResult r = cli_.Run({"insert", "Orders",
                          R"({"PartitionKey":"Zürich","RowKey":"0001","Count":3,)"
                          R"("Serial":"9007199254740993","Serial@odata.type":"Edm.Int64"})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);
  json written = json::parse(r.out);
  EXPECT_TRUE(written["odata.etag"].is_string());
  EXPECT_EQ(written["Timestamp@odata.type"], "Edm.DateTime");
  EXPECT_TRUE(written["Timestamp"].is_string());
  EXPECT_EQ(WithoutSystemMembers(r.out.substr(0, r.out.size() - 1)),
            R"({"PartitionKey":"Zürich","RowKey":"0001","Count":3,)"
            R"("Serial@odata.type":"Edm.Int64","Serial":"9007199254740993"})");
  // get prints the stored entity: the same ETag and Timestamp.
  RunResult got = cli_.Run({"get", "Orders", "Zürich", "0001"});
  ASSERT_EQ(got.exit_code, 0) << got.err;
  EXPECT_EQ(got.out, r.out);
}

TEST_F(CliEntityTest, EntityJsonMayComeFromStdin) {
  RunResult r = cli_.Run({"insert", "Orders"}, R"({"PartitionKey":"p","RowKey":"r","n":1})"
                                               "\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Get("p", "r"), R"({"PartitionKey":"p","RowKey":"r","n":1})");
  r = cli_.Run({"insert", "Orders"}, "  \n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no entity JSON"), std::string::npos) << r.err;
}

TEST_F(CliEntityTest, InsertOfExistingKeysExitsFour) {
  const std::string e = R"({"PartitionKey":"p","RowKey":"r","n":1})";
  ASSERT_EQ(cli_.Run({"insert", "Orders", e}).exit_code, 0);
  RunResult r = cli_.Run({"insert", "Orders", R"({"PartitionKey":"p","RowKey":"r","n":2})"});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.err.rfind("partkv: error: AlreadyExists: ", 0), 0u) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(Get("p", "r"), e);
}

TEST_F(CliEntityTest, BadJsonExitsTwoWithTheLibrarysMessage) {
  struct Case {
    std::string json, message;
  } cases[] = {
      {R"({"PartitionKey":"p","RowKey":"r")", "invalid JSON at byte"},
      {R"([1,2])", "must be an object"},
      {R"({"PartitionKey":"p","RowKey":"r","big":3000000000})", "outside the Int32 range"},
      {R"({"RowKey":"r"})", "property 'PartitionKey': missing"},
      {R"({"PartitionKey":"p","RowKey":"r","a/b":1})", "a/b"},
      {"\xff\xfe", "invalid JSON"},
  };
  for (const Case& c : cases) {
    RunResult r = cli_.Run({"insert", "Orders", c.json});
    EXPECT_EQ(r.exit_code, 2) << c.json;
    EXPECT_EQ(r.err.rfind("partkv: error: InvalidArgument: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_EQ(cli_.Run({"insert", "Missing", R"({"PartitionKey":"p","RowKey":"r"})"}).exit_code, 3);
}

TEST_F(CliEntityTest, ReplaceAndMergeTakeAnEtagCondition) {
  RunResult inserted = cli_.Run({"insert", "Orders", R"({"PartitionKey":"p","RowKey":"r","a":1})"});
  ASSERT_EQ(inserted.exit_code, 0) << inserted.err;
  std::string etag = EtagOf(inserted);

  // --if-match is required.
  EXPECT_EQ(cli_.Run({"replace", "Orders", R"({"PartitionKey":"p","RowKey":"r"})"}).exit_code, 2);
  EXPECT_EQ(cli_.Run({"merge", "Orders", R"({"PartitionKey":"p","RowKey":"r"})"}).exit_code, 2);

  RunResult replaced = cli_.Run(
      {"replace", "Orders", "--if-match", etag, R"({"PartitionKey":"p","RowKey":"r","b":2})"});
  ASSERT_EQ(replaced.exit_code, 0) << replaced.err;
  EXPECT_NE(EtagOf(replaced), etag);
  EXPECT_EQ(Get("p", "r"), R"({"PartitionKey":"p","RowKey":"r","b":2})");

  // The old ETag no longer holds: exit 5, nothing changes.
  RunResult stale = cli_.Run(
      {"merge", "Orders", "--if-match", etag, R"({"PartitionKey":"p","RowKey":"r","c":3})"});
  EXPECT_EQ(stale.exit_code, 5);
  EXPECT_EQ(stale.err.rfind("partkv: error: PreconditionFailed: ", 0), 0u) << stale.err;
  EXPECT_EQ(Get("p", "r"), R"({"PartitionKey":"p","RowKey":"r","b":2})");

  // Merge prints the merged-in properties; get shows the whole entity.
  RunResult merged = cli_.Run({"merge", "Orders", "--if-match", EtagOf(replaced),
                               R"({"PartitionKey":"p","RowKey":"r","c":3})"});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(WithoutSystemMembers(merged.out.substr(0, merged.out.size() - 1)),
            R"({"PartitionKey":"p","RowKey":"r","c":3})");
  EXPECT_EQ(Get("p", "r"), R"({"PartitionKey":"p","RowKey":"r","b":2,"c":3})");

  // "*" matches any ETag; a missing entity is NotFound.
  EXPECT_EQ(
      cli_.Run({"merge", "Orders", "--if-match", "*", R"({"PartitionKey":"p","RowKey":"r","d":4})"})
          .exit_code,
      0);
  RunResult missing =
      cli_.Run({"replace", "Orders", "--if-match", "*", R"({"PartitionKey":"p","RowKey":"x"})"});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_EQ(
      cli_.Run({"replace", "Orders", "--if-match", "", R"({"PartitionKey":"p","RowKey":"r"})"})
          .exit_code,
      2);
}

TEST_F(CliEntityTest, UpsertReplacesAndUpsertMergeMerges) {
  ASSERT_EQ(cli_.Run({"upsert", "Orders", R"({"PartitionKey":"p","RowKey":"r","a":1})"}).exit_code,
            0);
  EXPECT_EQ(Get("p", "r"), R"({"PartitionKey":"p","RowKey":"r","a":1})");
  ASSERT_EQ(cli_.Run({"upsert", "Orders", R"({"PartitionKey":"p","RowKey":"r","b":2})"}).exit_code,
            0);
  EXPECT_EQ(Get("p", "r"), R"({"PartitionKey":"p","RowKey":"r","b":2})");
  ASSERT_EQ(cli_.Run({"upsert", "Orders", "--merge", R"({"PartitionKey":"p","RowKey":"r","c":3})"})
                .exit_code,
            0);
  EXPECT_EQ(Get("p", "r"), R"({"PartitionKey":"p","RowKey":"r","b":2,"c":3})");
}

TEST_F(CliEntityTest, DeleteTakesAnOptionalEtagAndPrintsNothing) {
  RunResult inserted = cli_.Run({"insert", "Orders", R"({"PartitionKey":"p","RowKey":"r"})"});
  ASSERT_EQ(inserted.exit_code, 0);
  RunResult stale = cli_.Run({"delete", "Orders", "p", "r", "--if-match", "W/\"1234\""});
  EXPECT_EQ(stale.exit_code, 5) << stale.err;
  RunResult deleted = cli_.Run({"delete", "Orders", "p", "r", "--if-match", EtagOf(inserted)});
  EXPECT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_TRUE(deleted.out.empty());
  EXPECT_EQ(Get("p", "r"), "NOT_FOUND");
  RunResult again = cli_.Run({"delete", "Orders", "p", "r"});
  EXPECT_EQ(again.exit_code, 3);
  EXPECT_EQ(again.err.rfind("partkv: error: NotFound: ", 0), 0u) << again.err;
}

TEST_F(CliEntityTest, GetOfMissingEntityExitsThree) {
  RunResult r = cli_.Run({"get", "Orders", "nope", "nope"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(r.err.rfind("partkv: error: NotFound: ", 0), 0u) << r.err;
}

TEST_F(CliEntityTest, SchemeKeysAreComputedAndPrinted) {
  ASSERT_EQ(cli_.Run({"table", "create", "Events", "--pk", "concat(device,year)"}).exit_code, 0);
  RunResult r = cli_.Run({"insert", "Events", R"({"RowKey":"1","device":"abc","year":2018})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["PartitionKey"], "abc-2018");
  EXPECT_EQ(cli_.Run({"get", "Events", "abc-2018", "1"}).exit_code, 0);
}

TEST_F(CliEntityTest, RandomSuffixKeyPrintedIsTheOneWritten) {
  ASSERT_EQ(cli_.Run({"table", "create", "Events", "--pk", "random-suffix(device,50)"}).exit_code,
            0);
  RunResult r = cli_.Run({"insert", "Events", R"({"RowKey":"1","device":"abc"})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string pk = json::parse(r.out)["PartitionKey"];
  EXPECT_EQ(pk.rfind("abc.", 0), 0u) << pk;
  EXPECT_EQ(cli_.Run({"get", "Events", pk, "1"}).exit_code, 0);
  // Without the attribute the scheme reads, nothing is written and the error names it.
  r = cli_.Run({"insert", "Events", R"({"RowKey":"2","other":"abc"})"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("PartitionKey"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'device'"), std::string::npos) << r.err;
}

TEST_F(CliEntityTest, BatchAppliesEveryOperationAtomically) {
  ASSERT_EQ(
      cli_.Run({"insert", "Orders", R"({"PartitionKey":"p","RowKey":"old","v":1})"}).exit_code, 0);
  std::string etag = json::parse(cli_.Run({"get", "Orders", "p", "old"}).out)["odata.etag"];
  std::string ops =
      R"({"op":"insert","entity":{"PartitionKey":"p","RowKey":"a","v":1}})"
      "\n"
      "\n"
      R"({"op":"upsert","entity":{"PartitionKey":"p","RowKey":"b","v":2}})"
      "\n"
      R"({"op":"upsert-merge","entity":{"PartitionKey":"p","RowKey":"c","v":3}})"
      "\n"
      R"({"op":"merge","entity":{"PartitionKey":"p","RowKey":"old","w":9},"if_match":)" +
      json(etag).dump() + "}\n";
  RunResult r = cli_.Run({"batch", "Orders", cli_.WriteFile("ops.jsonl", ops)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = r.OutLines();
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(WithoutSystemMembers(lines[0]), R"({"PartitionKey":"p","RowKey":"a","v":1})");
  EXPECT_TRUE(json::parse(lines[3])["odata.etag"].is_string());
  EXPECT_EQ(Get("p", "old"), R"({"PartitionKey":"p","RowKey":"old","v":1,"w":9})");

  // From stdin; a replace and a delete.
  r = cli_.Run({"batch", "Orders", "-"},
               R"({"op":"replace","entity":{"PartitionKey":"p","RowKey":"a","x":1},"if_match":"*"})"
               "\n"
               R"({"op":"delete","entity":{"PartitionKey":"p","RowKey":"b"}})"
               "\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  lines = r.OutLines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], R"({"PartitionKey":"p","RowKey":"b"})");
  EXPECT_EQ(Get("p", "a"), R"({"PartitionKey":"p","RowKey":"a","x":1})");
  EXPECT_EQ(Get("p", "b"), "NOT_FOUND");
}

TEST_F(CliEntityTest, FailingBatchNamesTheLineAndWritesNothing) {
  ASSERT_EQ(cli_.Run({"insert", "Orders", R"({"PartitionKey":"p","RowKey":"b"})"}).exit_code, 0);
  RunResult r =
      cli_.Run({"batch", "Orders"}, R"({"op":"insert","entity":{"PartitionKey":"p","RowKey":"a"}})"
                                    "\n"
                                    "\n"
                                    R"({"op":"insert","entity":{"PartitionKey":"p","RowKey":"b"}})"
                                    "\n");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.err.rfind("partkv: error: AlreadyExists: line 3: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("nothing was written"), std::string::npos) << r.err;
  EXPECT_EQ(Get("p", "a"), "NOT_FOUND");

  struct Case {
    std::string line, message;
  } cases[] = {
      {R"({"op":"insert","entity":{"PartitionKey":"p","RowKey":"z"},"etag":"x"})",
       "unknown member 'etag'"},
      {R"({"op":"frob","entity":{"PartitionKey":"p","RowKey":"z"}})", "unknown op 'frob'"},
      {R"({"op":"merge","entity":{"PartitionKey":"p","RowKey":"z"}})", "needs \"if_match\""},
      {R"({"op":"insert","entity":{"PartitionKey":"p","RowKey":"z"},"if_match":"*"})",
       "applies to"},
      {R"({"op":"insert","entity":{"PartitionKey":"p","RowKey":"z","n":1,"n":2}})",
       "appears more than once"},
      {R"({"op":"insert","entity":[1]})", "must be a JSON object"},
      {R"({"op":"insert")", "invalid JSON"},
  };
  for (const Case& c : cases) {
    r = cli_.Run({"batch", "Orders"}, c.line + "\n");
    EXPECT_EQ(r.exit_code, 2) << c.line;
    EXPECT_EQ(r.err.rfind("partkv: error: InvalidArgument: line 1: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
  // Two PartitionKeys, and more than 100 operations, are the library's errors.
  r = cli_.Run({"batch", "Orders"}, R"({"op":"insert","entity":{"PartitionKey":"p","RowKey":"y"}})"
                                    "\n"
                                    R"({"op":"insert","entity":{"PartitionKey":"q","RowKey":"y"}})"
                                    "\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("partkv: error: InvalidArgument: line 2: ", 0), 0u) << r.err;
  std::string many;
  for (int i = 0; i < 101; ++i) {
    many +=
        R"({"op":"insert","entity":{"PartitionKey":"p","RowKey":"m)" + std::to_string(i) + "\"}}\n";
  }
  r = cli_.Run({"batch", "Orders"}, many);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("at most 100 operations"), std::string::npos) << r.err;
  EXPECT_EQ(Get("p", "m0"), "NOT_FOUND");
  r = cli_.Run({"batch", "Orders"}, "");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(cli_.Run({"batch", "Orders", dir_.Sub("missing.jsonl")}).exit_code, 3);
}

}  // namespace
}  // namespace partkv::testing
