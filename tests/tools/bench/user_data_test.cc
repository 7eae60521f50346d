// partkv-bench on the user's own data (--data, --strategy, --row-key, --read, --time), as a user
// runs it: small data sets generated here with known answers, and the recommendation and the
// traps it names asserted from the CSV and the terminal report. And bad input: one clear line on
// stderr, exit status 2.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "tests/testing/csv.h"
#include "tests/testing/temp_dir.h"
#include "tests/tools/cli/cli_runner.h"

namespace partkv::testing {
namespace {

namespace fs = std::filesystem;

// "2026-11-02T00:00:00.0000000Z" plus `seconds`.
std::string When(int64_t seconds) {
  const int64_t day = seconds / 86400, rest = seconds % 86400;
  return fmt::format("2026-11-{:02d}T{:02d}:{:02d}:{:02d}.0000000Z", 2 + day, rest / 3600,
                     rest / 60 % 60, rest % 60);
}

struct Outcome {
  RunResult run;
  std::vector<std::map<std::string, std::string>> csv;
  std::string html;

  // The strategy the CSV marks `mark` ("best", "runner-up"); "" when none.
  std::string Marked(const std::string& mark) const {
    for (const auto& row : csv) {
      if (row.at("recommendation") == mark) return row.at("strategy");
    }
    return "";
  }
  // The traps the CSV lists for `strategy`.
  std::string Traps(const std::string& strategy) const {
    for (const auto& row : csv) {
      if (row.at("strategy") == strategy) return row.at("traps");
    }
    ADD_FAILURE() << "no strategy " << strategy;
    return "";
  }
};

class UserDataTest : public ::testing::Test {
 protected:
  Outcome Run(const std::string& jsonl, std::vector<std::string> args) {
    const std::string data = bench_.WriteFile("data.jsonl", jsonl);
    const std::string out = dir_.Sub("report"), work = dir_.Sub("work");
    fs::create_directories(work);
    std::vector<std::string> all = {"--data", data, "--out", out, "--work-dir", work};
    all.insert(all.end(), args.begin(), args.end());
    Outcome o;
    o.run = bench_.RunRaw(all);
    if (o.run.exit_code == 0) {
      o.csv = CsvRows(ReadFileText(out + "/partkv-compare.csv"));
      o.html = ReadFileText(out + "/partkv-compare.html");
    }
    return o;
  }
  // Runs with bad input: exit 2, one line on stderr starting with "partkv-bench: error: ".
  std::string RunBad(const std::string& jsonl, std::vector<std::string> args) {
    Outcome o = Run(jsonl, std::move(args));
    EXPECT_EQ(o.run.exit_code, 2) << o.run.out << o.run.err;
    EXPECT_EQ(o.run.err.rfind("partkv-bench: error: ", 0), 0u) << o.run.err;
    EXPECT_EQ(std::count(o.run.err.begin(), o.run.err.end(), '\n'), 1) << o.run.err;
    return o.run.err;
  }

  TempDir dir_;
  CliRunner bench_{dir_};
};

TEST_F(UserDataTest, AHotAttributeLosesToAHashSuffix) {
  // One tenant sends 90 % of the orders, within one day, offered at 40,000/s: one partition per
  // tenant is refused by every service, and MD5 buckets of the tenant keep its heat. (At 10,000/s
  // the scores were within 0.2 of each other, the hash suffix's 50-shard read against the single
  // partition's deciding them by a few microseconds; at 40,000/s throttling decides, as it should.)
  std::mt19937_64 random(1);
  std::string jsonl;
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    const int tenant = random() % 10 < 9 ? 0 : 1 + static_cast<int>(random() % 49);
    jsonl += fmt::format(
        R"({{"tenant":"t{}","orderId":"o{:06d}","when":"{}","when@odata.type":"Edm.DateTime",)"
        R"("amount":{}.25,"note":"{}"}})"
        "\n",
        tenant, i, When(i * 20), i % 1000, std::string(60 + i % 40, 'x'));
  }
  Outcome o =
      Run(jsonl, {"--strategy", "concat(tenant)", "--strategy", "hash-suffix(tenant,orderId,50)",
                  "--strategy", "md5-bits(tenant,4)", "--row-key", "concat(orderId)", "--read",
                  "by-tenant=tenant", "--time", "when", "--replay-rate", "40000"});
  ASSERT_EQ(o.run.exit_code, 0) << o.run.err;
  EXPECT_EQ(o.Marked("best"), "hash-suffix(tenant,orderId,50)");
  EXPECT_NE(o.run.out.find("Recommendation: hash-suffix(tenant,orderId,50)"), std::string::npos)
      << o.run.out;
  EXPECT_NE(o.Traps("concat(tenant)").find("throttled"), std::string::npos);
  EXPECT_NE(o.Traps("md5-bits(tenant,4)").find("hot value"), std::string::npos);
  EXPECT_EQ(o.Traps("hash-suffix(tenant,orderId,50)").find("throttled"), std::string::npos);
  // The user's names are in every report.
  for (const std::string& text : {o.run.out, o.html}) {
    EXPECT_NE(text.find("by-tenant"), std::string::npos);
    EXPECT_NE(text.find("tenant"), std::string::npos);
  }
  EXPECT_EQ(o.csv.front().count("by_tenant_p50_us"), 1u);
}

TEST_F(UserDataTest, PerEntityReadsMakeTheConcatenatedKeyWin) {
  // Reads of one order by customer and order id, at a low write rate: the concatenated key is
  // one Get; a random suffix probes its 100 shards; a key by region must scan the table. (With
  // 20 shards the probe took about twice a Get, a margin of 1.5 score points that a noisy run
  // could erase: the random suffix stores its keys in fewer bytes.)
  std::mt19937_64 random(2);
  std::string jsonl;
  const char* const regions[] = {"north", "south", "east", "west"};
  for (int i = 0; i < 3000; ++i) {
    jsonl +=
        fmt::format(R"({{"customerId":"c{:04d}","orderId":"o{:06d}","region":"{}","total":{}}})"
                    "\n",
                    random() % 300, i, regions[random() % 4], static_cast<int>(random() % 1000));
  }
  Outcome o = Run(jsonl, {"--strategy", "concat(customerId,orderId)", "--strategy",
                          "random-suffix(customerId,100)", "--strategy", "concat(region)",
                          "--row-key", "concat(orderId)", "--read",
                          "one-order=customerId,orderId@10", "--replay-rate", "200"});
  ASSERT_EQ(o.run.exit_code, 0) << o.run.err;
  EXPECT_EQ(o.Marked("best"), "concat(customerId,orderId)");
  EXPECT_NE(o.Traps("random-suffix(customerId,100)").find("probing point read"), std::string::npos);
  EXPECT_NE(o.Traps("concat(region)").find("table scan"), std::string::npos);
  EXPECT_EQ(o.Traps("concat(customerId,orderId)"), "");
}

TEST_F(UserDataTest, ReadsByDayMakeOnePartitionPerDayTolerableAtALowRate) {
  // 25 days of 120 events, offered at 100/s, read a day at a time: one partition per day is
  // never throttled at that rate and reads a day from one partition; the hash suffixes read
  // 100 or 200 shards (and the code-point product of these ids collapses); a key per id scans.
  std::string jsonl;
  for (int i = 0; i < 3000; ++i) {
    const int day = i / 120;
    jsonl += fmt::format(R"({{"day":"2026-11-{:02d}","id":"ORD-202611{:02d}-{:04d}","when":"{}",)"
                         R"("when@odata.type":"Edm.DateTime","reading":{}.5}})"
                         "\n",
                         2 + day, 2 + day, i % 120, When(day * 86400 + (i % 120) * 600), i % 97);
  }
  Outcome o = Run(jsonl, {"--strategy", "concat(day)", "--strategy", "hash-suffix(day,id,100)",
                          "--strategy", "hash-suffix(day,id,200,hash=codepoint-product)",
                          "--strategy", "concat(id)", "--row-key", "concat(id)", "--read",
                          "by-day=day", "--time", "when", "--replay-rate", "100"});
  ASSERT_EQ(o.run.exit_code, 0) << o.run.err;
  EXPECT_EQ(o.Marked("best"), "concat(day)");
  EXPECT_EQ(o.Traps("concat(day)"), "");
  EXPECT_NE(o.Traps("hash-suffix(day,id,200,hash=codepoint-product)").find("collapsed shards"),
            std::string::npos);
  EXPECT_NE(o.Traps("concat(id)").find("table scan"), std::string::npos);
}

// Orders of 300 customers over 4 days, each with a region.
std::string Orders(int n) {
  std::mt19937_64 random(3);
  const char* const regions[] = {"north", "south", "east", "west"};
  std::string jsonl;
  for (int i = 0; i < n; ++i) {
    const int day = i * 4 / n;
    jsonl += fmt::format(
        R"({{"customerId":"c{:04d}","orderId":"o{:06d}","region":"{}","day":"2026-11-{:02d}",)"
        R"("when":"{}","when@odata.type":"Edm.DateTime"}})"
        "\n",
        random() % 300, i, regions[random() % 4], 2 + day, When(day * 86400 + i % 1000 * 60));
  }
  return jsonl;
}

TEST_F(UserDataTest, SuggestProposesKeysForTheReadsAndTheWriteRate) {
  Outcome o = Run(Orders(3000), {"--strategy", "concat(region)", "--row-key", "concat(orderId)",
                                 "--read", "by-customer=customerId@3", "--read", "by-day=day",
                                 "--time", "when", "--replay-rate", "20000", "--suggest"});
  ASSERT_EQ(o.run.exit_code, 0) << o.run.err;
  std::vector<std::string> strategies;
  for (const auto& row : o.csv) strategies.push_back(row.at("strategy"));
  ASSERT_GE(strategies.size(), 3u);
  EXPECT_EQ(strategies.front(), "concat(region)");  // the given one first
  // Per read, its attributes; and the day (a fifth of the entities each, offered at 20,000/s:
  // 4,000/s at its peak) sharded by the RowKey's orderId to about 500/s a shard.
  EXPECT_NE(std::find(strategies.begin(), strategies.end(), "concat(customerId)"),
            strategies.end());
  EXPECT_NE(std::find_if(
                strategies.begin(), strategies.end(),
                [](const std::string& s) { return s.rfind("hash-suffix(day,orderId,", 0) == 0; }),
            strategies.end())
      << o.run.out;
  EXPECT_NE(o.run.out.find("suggested concat(customerId) — suggested: read by-customer goes to "
                           "one partition"),
            std::string::npos)
      << o.run.out;
  EXPECT_NE(o.html.find("(suggested)"), std::string::npos);
}

TEST_F(UserDataTest, AnAttributeNameAloneIsConcatOfIt) {
  Outcome o = Run(Orders(600), {"--strategy", "region", "--strategy", "concat(customerId)",
                                "--row-key", "orderId", "--read", "by-region=region"});
  ASSERT_EQ(o.run.exit_code, 0) << o.run.err;
  ASSERT_EQ(o.csv.size(), 2u);
  EXPECT_EQ(o.csv[0].at("strategy"), "region");  // labelled as typed
  EXPECT_EQ(o.csv[0].at("entities_on_disk"), "600");
  EXPECT_NE(o.html.find("one partition per region"), std::string::npos);
  // An attribute no entity has: named with the flag, as for any strategy.
  const std::string err = RunBad(Orders(10), {"--strategy", "custId", "--row-key", "orderId"});
  EXPECT_NE(err.find("--strategy custId"), std::string::npos) << err;
  EXPECT_NE(err.find("'custId'"), std::string::npos) << err;
}

TEST_F(UserDataTest, TheWorkloadFileTheReportPrintsRunsTheSameComparison) {
  Outcome first = Run(Orders(1500), {"--strategy", "concat(region)", "--strategy",
                                     "concat(customerId)", "--row-key", "concat(orderId)", "--read",
                                     "by-customer=customerId@3", "--time", "when"});
  ASSERT_EQ(first.run.exit_code, 0) << first.run.err;
  const std::string& out = first.run.out;
  const size_t begin = out.find("{\n", out.find("as a workload file"));
  const size_t end = out.find("\n}\n", begin);
  ASSERT_NE(begin, std::string::npos) << out;
  ASSERT_NE(end, std::string::npos) << out;
  const std::string workload =
      bench_.WriteFile("workload.json", out.substr(begin, end + 2 - begin));
  const std::string work = dir_.Sub("work2");
  fs::create_directories(work);
  RunResult again =
      bench_.RunRaw({"--workload", workload, "--out", dir_.Sub("report2"), "--work-dir", work});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto rows = CsvRows(ReadFileText(dir_.Sub("report2") + "/partkv-compare.csv"));
  ASSERT_EQ(rows.size(), first.csv.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].at("strategy"), first.csv[i].at("strategy"));
    EXPECT_EQ(rows[i].at("entities_on_disk"), first.csv[i].at("entities_on_disk"));
    EXPECT_EQ(rows[i].at("by_customer_samples"), first.csv[i].at("by_customer_samples"));
  }
  // A workload file with a member it does not know: exit 2, naming the file and the member.
  const std::string bad = bench_.WriteFile("bad.json", R"j({"strategy": ["concat(a)"]})j");
  RunResult r = bench_.RunRaw({"--workload", bad, "--out", dir_.Sub("report3")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--workload " + bad + ": unknown member 'strategy'"), std::string::npos)
      << r.err;
}

TEST_F(UserDataTest, DataFromStdinIsReadLikeAFile) {
  RunOptions options;
  options.input = Orders(600);
  const std::string work = dir_.Sub("work");
  fs::create_directories(work);
  RunResult r = bench_.RunRaw(
      {"--data", "-", "--strategy", "concat(customerId)", "--row-key", "concat(orderId)", "--read",
       "by-day=day", "--out", dir_.Sub("report"), "--work-dir", work},
      options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("stdin: 600 entities"), std::string::npos) << r.out;
  const auto rows = CsvRows(ReadFileText(dir_.Sub("report") + "/partkv-compare.csv"));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("entities_on_disk"), "600");
  EXPECT_TRUE(fs::is_empty(work));  // the spooled copy went with the run
}

TEST_F(UserDataTest, BadInputEndsInOneClearErrorWithStatus2) {
  const std::string good = R"({"a":"x","id":"1"})"
                           "\n"
                           R"({"a":"y","id":"2"})"
                           "\n";
  const std::vector<std::string> base = {"--strategy", "concat(a)", "--row-key", "concat(id)"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> all = base;
    all.insert(all.end(), more.begin(), more.end());
    return all;
  };
  // A malformed line: its number.
  std::string err = RunBad(good + "{\"a\":\n", base);
  EXPECT_NE(err.find("line 3"), std::string::npos) << err;
  // A strategy naming an attribute no entity has: the flag and the attribute.
  err = RunBad(good, {"--strategy", "concat(custId)", "--row-key", "concat(id)"});
  EXPECT_NE(err.find("--strategy concat(custId)"), std::string::npos) << err;
  EXPECT_NE(err.find("'custId'"), std::string::npos) << err;
  // A read attribute no entity has.
  err = RunBad(good, with({"--read", "r=nope"}));
  EXPECT_NE(err.find("--read r=nope"), std::string::npos) << err;
  EXPECT_NE(err.find("'nope'"), std::string::npos) << err;
  // An empty file.
  err = RunBad("", base);
  EXPECT_NE(err.find("no entities"), std::string::npos) << err;
  // Keys that collide: the RowKey scheme does not tell two entities of one partition apart.
  err = RunBad(good + R"({"a":"x","id":"1"})"
                      "\n",
               base);
  EXPECT_TRUE(err.find("line 3") != std::string::npos || err.find("line 1") != std::string::npos)
      << err;
  EXPECT_NE(err.find("unique"), std::string::npos) << err;
  // No RowKey in the data and no --row-key.
  err = RunBad(good, {"--strategy", "concat(a)"});
  EXPECT_NE(err.find("RowKey"), std::string::npos) << err;
}

}  // namespace
}  // namespace partkv::testing
