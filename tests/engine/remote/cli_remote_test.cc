// The partkv tool on a remote store (docs/cli.md "Remote stores"): --store or $PARTKV_STORE
// naming `partkv serve` or Azurite by a connection string. Export from a local store, import into
// the remote one (the bulk writer's remote path: many batches, several in flight), export again:
// the same entities, every Edm type and awkward keys included; query-shards pages as a local
// table's; the entity commands; and the refusals: stats and serve need a local store, a bad
// connection string fails in one line that shows no key. Entities are compared as the library's
// own JSON lines (EntityFromJson, then EntityToJson, which drops ETag and Timestamp).

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "partkv/partkv.h"
#include "tests/testing/endpoint_server.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/tools/cli/cli_runner.h"

namespace partkv {
namespace {

using testing::CliRunner;
using testing::EndpointKind;
using testing::RunOptions;
using testing::RunResult;

const testing::ServerPrograms kPrograms{PARTKV_CLI_PATH, PARTKV_AZURITE_DIR};

// The entities of JSON lines in the library's own form, without ETag and Timestamp, sorted.
std::vector<std::string> Canonical(const std::string& lines) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < lines.size()) {
    size_t nl = lines.find('\n', at);
    if (nl == std::string::npos) nl = lines.size();
    std::string_view line(lines.data() + at, nl - at);
    at = nl + 1;
    if (line.empty()) continue;
    auto entity = EntityFromJson(line);
    EXPECT_OK(entity) << "in " << line;
    if (entity.ok()) out.push_back(EntityToJson(*entity));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Row i of the round trip: keys with spaces, quotes, '%', '+' and non-ASCII, and a property of
// every Edm type, the awkward values among them (NaN and the infinities, an Int64 past 2^53, a
// DateTime to the 100 ns).
Entity RoundTripRow(int i) {
  const int key = i / 25;  // 25 rows a PartitionKey
  Entity e("pk " + std::to_string(key) + " O'Brien 100% a+b é 日本 😀",
           "r '" + std::to_string(100000 + i) + "' %2F+ é😀");
  e.Set("Text", Value::String("it's 日本語 é 😀 \"quoted\" " + std::to_string(i)));
  e.Set("Bytes", Value::Binary(std::string("\x00\x01\xfe\xff", 4) + std::to_string(i)));
  e.Set("Flag", Value::Boolean(i % 2 == 0));
  // 2023-11-14T22:13:20 plus i times 1.0000019 s and 0.1234567 s: every digit of 100 ns used.
  e.Set("When", Value::DateTime(DateTime{DateTime::kUnixEpochTicks + 17'000'000'000'000'000 +
                                         1'234'567 + int64_t{i} * 10'000'019}));
  const double doubles[] = {std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            0.1,
                            -2.0,
                            1e300};
  e.Set("Real", Value::Double(doubles[i % 6]));
  auto guid = Guid::Parse("12345678-9abc-def0-1234-56789abcde" + std::to_string(10 + i % 90));
  EXPECT_OK(guid);
  e.Set("Id", Value::Guid(*guid));
  e.Set("Small", Value::Int32(-i));
  e.Set("Big", Value::Int64((int64_t{1} << 53) + 1 + i));
  return e;
}

class CliRemoteTest : public ::testing::TestWithParam<EndpointKind> {
 protected:
  void SetUp() override {
    auto server = testing::SharedEndpoint(GetParam(), kPrograms);
    ASSERT_OK(server);
    location_ = (*server)->connection_string();
    // A table name per test: the server is shared by the test process.
    for (char c : std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())) {
      if (std::isalnum(static_cast<unsigned char>(c)) && table_.size() < 50) table_ += c;
    }
    (void)Remote({"table", "drop", table_});
  }

  // partkv on the remote store, named by $PARTKV_STORE.
  RunResult Remote(const std::vector<std::string>& args, const std::string& input = "") const {
    RunOptions options;
    options.input = input;
    options.env["PARTKV_STORE"] = location_;
    return cli_.RunRaw(args, options);
  }

  testing::TempDir dir_;
  CliRunner cli_{dir_};
  std::string location_;
  std::string table_;
};

INSTANTIATE_TEST_SUITE_P(Servers, CliRemoteTest,
                         ::testing::Values(EndpointKind::kPartkvServe, EndpointKind::kAzurite),
                         [](const auto& info) {
                           return std::string(testing::EndpointKindName(info.param));
                         });

TEST_P(CliRemoteTest, ExportImportExportKeepsEveryTypeAndKey) {
  constexpr int kRows = 3000;
  std::string input;
  for (int i = 0; i < kRows; ++i) input += EntityToJson(RoundTripRow(i)) + "\n";
  const std::string input_file = cli_.WriteFile("input.jsonl", input);

  // A local store: import, export.
  RunResult r = cli_.Run({"table", "create", "Local"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cli_.Run({"import", "Local", input_file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult local = cli_.Run({"export", "Local"});
  ASSERT_EQ(local.exit_code, 0) << local.err;
  const std::vector<std::string> expected = Canonical(input);
  ASSERT_EQ(Canonical(local.out), expected);

  // The remote store: import the export (ETags and Timestamps in it are ignored), export.
  r = Remote({"table", "create", table_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"TableName\":\"" + table_ + "\"}\n");
  r = Remote({"import", table_, cli_.WriteFile("local.jsonl", local.out)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 120 PartitionKeys of 25 rows, in key order: 120 batches, 8 at a time.
  EXPECT_NE(r.err.find("3000 of 3000 rows written to " + table_), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; 120 batches; 8 in flight;"), std::string::npos) << r.err;
  RunResult remote = Remote({"export", table_});
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  EXPECT_EQ(Canonical(remote.out), expected);

  // And back again: the remote export imports into a new local table unchanged.
  r = cli_.Run({"table", "create", "Back"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cli_.Run({"import", "Back", cli_.WriteFile("remote.jsonl", remote.out)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult back = cli_.Run({"export", "Back"});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(Canonical(back.out), expected);

  // A point read of an awkward key, addressed in a URL.
  const Entity row = RoundTripRow(1234);
  r = Remote({"get", table_, row.partition_key(), row.row_key()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Canonical(r.out), std::vector<std::string>{EntityToJson(row)});
}

// Pages of query-shards, row for row: "ROWS|ROWS|..." with each page's rows, by content.
std::string ShardPages(const std::function<RunResult(const std::vector<std::string>&)>& run,
                       std::vector<std::string> args) {
  std::string pages;
  std::string token;
  for (int page = 0; page < 100; ++page) {
    std::vector<std::string> call = args;
    if (!token.empty()) {
      call.push_back("--continuation");
      call.push_back(token);
    }
    RunResult r = run(call);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (r.exit_code != 0) return pages;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_TRUE(j.is_object()) << r.out;
    if (!j.is_object()) return pages;
    pages += std::to_string(j["value"].size()) + ":";
    for (const auto& e : j["value"]) {
      auto entity = EntityFromJson(e.dump());
      EXPECT_OK(entity);
      if (entity.ok()) pages += EntityToJson(*entity);
    }
    pages += "|";
    if (j["continuation"].is_null()) return pages;
    token = j["continuation"].get<std::string>();
  }
  ADD_FAILURE() << "more than 100 pages";
  return pages;
}

TEST_P(CliRemoteTest, QueryShardsPagesAsOnALocalTable) {
  const std::string scheme = "hash-suffix(day,device,4)";
  std::string input;
  for (int i = 0; i < 160; ++i) {
    input += R"({"day":"2026-12-0)" + std::to_string(1 + i % 2) + R"(","device":"d)" +
             std::to_string(i % 10) + R"(","RowKey":")" + std::to_string(10 + i / 20) + ":" +
             std::to_string(10 + i % 20) + R"(-d)" + std::to_string(i % 10) + R"(","temp":)" +
             std::to_string(15 + i % 11) + ".5}\n";
  }
  const std::string file = cli_.WriteFile("readings.jsonl", input);
  RunResult r = cli_.Run({"table", "create", "Readings", "--pk", scheme});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cli_.Run({"import", "Readings", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Remote({"table", "create", table_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Remote({"import", table_, file, "--pk", scheme});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  auto local = [&](const std::vector<std::string>& args) {
    std::vector<std::string> all = {"query-shards", "Readings"};
    all.insert(all.end(), args.begin(), args.end());
    return cli_.Run(all);
  };
  auto remote = [&](const std::vector<std::string>& args) {
    std::vector<std::string> all = {"query-shards", table_};
    all.insert(all.end(), args.begin(), args.end());
    all.push_back("--pk-scheme");
    all.push_back(scheme);
    return Remote(all);
  };
  for (const std::vector<std::string>& query :
       {std::vector<std::string>{"2026-12-01", "--top", "7"},
        std::vector<std::string>{"2026-12-02", "--top", "5", "--rk-ge", "13", "--select", "temp",
                                 "--filter", "temp gt 20.0"}}) {
    const std::string expected = ShardPages(local, query);
    EXPECT_EQ(ShardPages(remote, query), expected);
    EXPECT_GT(std::count(expected.begin(), expected.end(), '|'), 3) << "several pages";
  }
  // With --pk-strategy instead of a scheme at open, the same.
  std::vector<std::string> query = {"2026-12-01", "--top", "9"};
  const std::string expected = ShardPages(local, query);
  query.insert(query.end(), {"--pk-strategy", scheme});
  EXPECT_EQ(ShardPages(
                [&](const std::vector<std::string>& args) {
                  std::vector<std::string> all = {"query-shards", table_};
                  all.insert(all.end(), args.begin(), args.end());
                  return Remote(all);
                },
                query),
            expected);
}

TEST_P(CliRemoteTest, EntityCommandsAndBatchesWork) {
  RunResult r = Remote({"table", "create", table_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Remote({"insert", table_, R"({"PartitionKey":"p","RowKey":"r1","n":1})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Remote({"insert", table_, R"({"PartitionKey":"p","RowKey":"r1","n":2})"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  // replace under the ETag `get` printed; the old ETag then fails.
  r = Remote({"get", table_, "p", "r1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string etag = nlohmann::json::parse(r.out)["odata.etag"].get<std::string>();
  r = Remote(
      {"replace", table_, "--if-match", etag, R"({"PartitionKey":"p","RowKey":"r1","n":3})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Remote({"merge", table_, "--if-match", etag, R"({"PartitionKey":"p","RowKey":"r1","m":4})"});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  r = Remote({"merge", table_, "--if-match", "*", R"({"PartitionKey":"p","RowKey":"r1","m":4})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Remote({"upsert", table_, "--merge", R"({"PartitionKey":"p","RowKey":"r2","k":5})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Remote({"batch", table_},
             R"({"op":"insert","entity":{"PartitionKey":"p","RowKey":"r3"}})"
             "\n"
             R"({"op":"delete","entity":{"PartitionKey":"p","RowKey":"r2"},"if_match":"*"})"
             "\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Remote({"delete", table_, "p", "r2"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  r = Remote({"query", table_, "--pk", "p", "--select", "n,m"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["value"].size(), 2u) << r.out;
  EXPECT_EQ(j["value"][0]["RowKey"], "r1");
  EXPECT_EQ(j["value"][0]["n"], 3);
  EXPECT_EQ(j["value"][0]["m"], 4);
  EXPECT_EQ(j["value"][1]["RowKey"], "r3");
  r = Remote({"table", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("{\"TableName\":\"" + table_ + "\"}"), std::string::npos) << r.out;

  // A key scheme given to the command computes the keys it leaves out; `table create` with one
  // explains where schemes go instead.
  r = Remote({"insert", table_, "--pk", "concat(device)", R"({"RowKey":"x","device":"d7"})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["PartitionKey"], "d7") << r.out;
  r = Remote({"table", "create", table_ + "x", "--pk", "concat(device)"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give them to every command that opens it"), std::string::npos) << r.err;

  // An import that meets an existing row says which rows it wrote: its batch (rows 100..149 of
  // one PartitionKey, after rows 0..99) fails, and the batch before it is written.
  r = Remote({"insert", table_, R"({"PartitionKey":"q","RowKey":"1149"})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string lines;
  for (int i = 0; i < 150; ++i) {
    lines += R"({"PartitionKey":"q","RowKey":")" + std::to_string(1000 + i) + "\"}\n";
  }
  r = Remote({"import", table_, cli_.WriteFile("conflict.jsonl", lines)});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("partkv: error: AlreadyExists: line 150: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; 100 rows were written (every row before line 101), none from line 101 "
                       "on\n"),
            std::string::npos)
      << r.err;
  r = Remote({"query", table_, "--pk", "q", "--select", "RowKey"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["value"].size(), 101u);
}

// An import that stops at an existing row names exactly the rows it wrote, whichever batches were
// in flight beside the failing one: the lines before one line, and any later lines it lists.
TEST_P(CliRemoteTest, AStoppedImportNamesExactlyTheRowsItWrote) {
  constexpr int kKeys = 60, kRows = 50, kBad = 30 * kRows + 20;  // one batch per PartitionKey
  auto pk = [](int i) { return "p" + std::to_string(i / kRows); };
  RunResult r = Remote({"table", "create", table_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Remote(
      {"insert", table_,
       R"({"PartitionKey":")" + pk(kBad) + R"(","RowKey":")" + std::to_string(kBad) + "\"}"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string lines;
  for (int i = 0; i < kKeys * kRows; ++i) {
    lines += R"({"PartitionKey":")" + pk(i) + R"(","RowKey":")" + std::to_string(i) + R"(","n":)" +
             std::to_string(i) + "}\n";
  }
  r = Remote({"import", table_, cli_.WriteFile("rows.jsonl", lines)});
  ASSERT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("partkv: error: AlreadyExists: line " + std::to_string(kBad + 1) + ": "),
            std::string::npos)
      << r.err;

  // The lines the message says are written: line i holds row i - 1.
  std::set<int> said;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex(R"(every row before line (\d+))"))) << r.err;
  const int before = std::stoi(m[1]);
  EXPECT_EQ(before, 30 * kRows + 1) << "every batch before the failing one is written";
  for (int line = 1; line < before; ++line) said.insert(line);
  if (std::regex_search(r.err, m, std::regex(R"(only those of lines? ([0-9, -]+) \()"))) {
    std::string list = m[1];
    std::smatch range;
    while (std::regex_search(list, range, std::regex(R"((\d+)(-(\d+))?)"))) {
      const int first = std::stoi(range[1]);
      const int last = range[3].matched ? std::stoi(range[3]) : first;
      EXPECT_GT(first, kBad + 1);
      for (int line = first; line <= last; ++line) said.insert(line);
      list = range.suffix();
    }
  } else {
    EXPECT_NE(r.err.find("none from line " + std::to_string(before) + " on"), std::string::npos)
        << r.err;
  }
  std::set<int> stored;
  RunResult exported = Remote({"export", table_});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  for (const std::string& line : exported.OutLines()) {
    auto j = nlohmann::json::parse(line);
    if (!j.contains("n")) continue;  // the row that was there before
    stored.insert(j["n"].get<int>() + 1);
  }
  EXPECT_EQ(stored, said);
  EXPECT_EQ(exported.OutLines().size(), said.size() + 1);
}

// Refusals need no server: nothing is sent before a command would use the store.
class CliRemoteRefusalTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
  CliRunner cli_{dir_};
};

constexpr char kSecret[] = "c2VjcmV0LWtleS1ieXRlcw==";  // base64, so that it parses as a key

std::string Location(const std::string& key) {
  return "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + key +
         ";TableEndpoint=http://127.0.0.1:9/devstoreaccount1;";
}

void ExpectOneLine(const RunResult& r, int exit_code, const std::string& says) {
  EXPECT_EQ(r.exit_code, exit_code) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("c2VjcmV0"), std::string::npos) << "the key shows: " << r.err;
  EXPECT_EQ(r.out.find("c2VjcmV0"), std::string::npos) << "the key shows: " << r.out;
}

TEST_F(CliRemoteRefusalTest, StatsAndServeNeedALocalStore) {
  ExpectOneLine(cli_.RunRaw({"--store", Location(kSecret), "stats", "Orders"}), 2,
                "partkv: error: InvalidArgument: stats needs a local store");
  RunOptions env;
  env.env["PARTKV_STORE"] = Location(kSecret);
  ExpectOneLine(cli_.RunRaw({"stats", "Orders", "--json"}, env), 2,
                "partkv: error: InvalidArgument: stats needs a local store");
  ExpectOneLine(cli_.RunRaw({"serve", "--port", "0"}, env), 2,
                "partkv: error: InvalidArgument: serve needs a local store");
  ExpectOneLine(cli_.RunRaw({"serve", "--store", Location(kSecret), "--port", "0"}), 2,
                "partkv: error: InvalidArgument: serve needs a local store");
}

TEST_F(CliRemoteRefusalTest, ABadConnectionStringFailsInOneLineWithoutItsKey) {
  const std::string key = kSecret;
  for (const std::string& location :
       {"AccountName=devstoreaccount1;AccountKey=" + key + ";Frobnicate=1",
        "AcountName=devstoreaccount1;AccountKey=" + key,
        "AccountName=devstoreaccount1;AccountKey=" + key + "!;TableEndpoint=http://127.0.0.1:9/a",
        "AccountName=devstoreaccount1;AccountKey=" + key + ";SharedAccessSignature=sv=1&sig=" + key,
        "AccountName=devstoreaccount1;AccountKey=" + key + ";TableEndpoint=ftp://127.0.0.1/a",
        "DefaultEndpointsProtocol=http;AccountKey=" + key,
        "https://devstoreaccount1.table.core.windows.net/?sv=2020-08-04&sig=" + key + "#top"}) {
    SCOPED_TRACE(location);
    ExpectOneLine(cli_.RunRaw({"--store", location, "table", "list"}), 2,
                  "partkv: error: InvalidArgument: ");
  }
}

// The key parses but is not the account's: the server's refusal, still without the key.
TEST_F(CliRemoteRefusalTest, AWrongKeyIsRefusedByTheServerWithoutShowingIt) {
  auto server = testing::SharedEndpoint(EndpointKind::kPartkvServe, kPrograms);
  ASSERT_OK(server);
  std::string location = (*server)->connection_string();
  location.replace(location.find(testing::kDevAccountKey), testing::kDevAccountKey.size(), kSecret);
  ExpectOneLine(cli_.RunRaw({"--store", location, "table", "list"}), 7, "AuthenticationFailed");
}

}  // namespace
}  // namespace partkv
