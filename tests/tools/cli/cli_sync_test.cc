// partkv sync between a local table and a table of another store: a second local store given as
// --remote (and, once, `partkv serve` reached through a connection string). The usage errors,
// each checked before anything is opened or sent; the push of a new pair (every entity) and of
// nothing the second time; pulls and deletes both ways and --push / --pull alone; conflicts under
// report and local-wins with the lines of --conflicts-file; the --json report; the progress line
// on a terminal only; and no account key in any output.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "tests/tools/cli/cli_runner.h"
#include "tools/cli/exit_codes.h"

namespace partkv::testing {
namespace {

using cli::kExitInvalidArgument;
using cli::kExitNotFound;
using cli::kExitOk;
using cli::kExitOther;
using nlohmann::json;

// The development account's key, which `partkv serve` takes by default: it must never be shown.
constexpr char kDevAccountKey[] =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

// How long the test waits for `partkv serve` to listen, or to exit once told to.
constexpr std::chrono::seconds kServeDeadline{60};

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The fields of SyncReport (partkv/sync.h) that `sync --json` reports, besides what it says
// about the pair.
const std::vector<std::string> kReportFields = {"pushed",
                                                "pushed_deletes",
                                                "push_skipped",
                                                "adopted",
                                                "pulled",
                                                "pulled_deletes",
                                                "pull_unchanged",
                                                "remote_keys_listed",
                                                "conflicts",
                                                "local_won",
                                                "remote_won",
                                                "set_aside",
                                                "remote_requests",
                                                "seeded",
                                                "seconds",
                                                "first_conflicts",
                                                "ok"};

// `partkv --store DIR serve --port 0` as a child process, until the object is destroyed (SIGTERM,
// then SIGKILL when it has not exited by the deadline). The child dies with the test process.
class ServeChild {
 public:
  explicit ServeChild(const std::string& store) {
    std::vector<std::string> all = {
        CliRunner::BinaryPath(), "--store", store, "serve", "--port", "0"};
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) return;
    std::fflush(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      unsetenv("PARTKV_STORE");
      dup2(out[1], STDOUT_FILENO);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    out_ = out[0];
    port_ = ReadPort();
  }
  ServeChild(const ServeChild&) = delete;
  ServeChild& operator=(const ServeChild&) = delete;
  ~ServeChild() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      // Its stdout closes when it exits: wait for that, without sleeping.
      const auto deadline = std::chrono::steady_clock::now() + kServeDeadline;
      char chunk[4096];
      while (out_ >= 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
          kill(pid_, SIGKILL);
          break;
        }
        pollfd p{out_, POLLIN, 0};
        int n = poll(&p, 1, static_cast<int>(left.count()));
        if (n < 0 && errno == EINTR) continue;
        if (n > 0 && read(out_, chunk, sizeof chunk) > 0) continue;
        if (n != 0) break;
      }
      int status = 0;
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
    if (out_ >= 0) close(out_);
  }

  // 0 when the server did not say it listens.
  int port() const { return port_; }
  std::string connection_string() const {
    return "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" +
           std::string(kDevAccountKey) +
           ";TableEndpoint=http://127.0.0.1:" + std::to_string(port_) + "/devstoreaccount1;";
  }

 private:
  // The port of the line tools/serve/server.cc prints once it listens.
  int ReadPort() {
    static const std::regex kListening(R"(listening on http://127\.0\.0\.1:(\d+)/)");
    const auto deadline = std::chrono::steady_clock::now() + kServeDeadline;
    std::string text;
    while (true) {
      std::smatch m;
      if (std::regex_search(text, m, kListening)) return std::stoi(m[1]);
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return 0;
      pollfd p{out_, POLLIN, 0};
      int n = poll(&p, 1, static_cast<int>(left.count()));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return 0;
      char chunk[4096];
      ssize_t got = read(out_, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return 0;
      text.append(chunk, static_cast<size_t>(got));
    }
  }

  pid_t pid_ = -1;
  int out_ = -1;
  int port_ = 0;
};

class CliSyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RunResult r = cli_.Run({"table", "create", "Orders", "--change-feed"});
    ASSERT_EQ(r.exit_code, kExitOk) << r.err;
    r = At(second_, {"table", "create", "Orders"});
    ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  }

  // partkv --store <store> args...
  RunResult At(const std::string& store, const std::vector<std::string>& args,
               const RunOptions& options = {}) const {
    std::vector<std::string> all = {"--store", store};
    all.insert(all.end(), args.begin(), args.end());
    return cli_.RunRaw(all, options);
  }
  RunResult MustRun(const std::string& store, const std::vector<std::string>& args) const {
    RunResult r = At(store, args);
    EXPECT_EQ(r.exit_code, kExitOk) << r.err;
    return r;
  }
  // partkv --store <store> sync Orders --remote <second> args...
  RunResult Sync(const std::vector<std::string>& args, const RunOptions& options = {}) const {
    std::vector<std::string> all = {"sync", "Orders", "--remote", second_};
    all.insert(all.end(), args.begin(), args.end());
    return At(cli_.store(), all, options);
  }
  // The --json report of a sync that must succeed.
  json SyncJson(const std::vector<std::string>& args) const {
    std::vector<std::string> all = args;
    all.push_back("--json");
    RunResult r = Sync(all);
    EXPECT_EQ(r.exit_code, kExitOk) << r.err;
    EXPECT_EQ(r.OutLines().size(), 1u) << r.out;
    json report = json::parse(r.out, nullptr, false);
    EXPECT_TRUE(report.is_object()) << r.out;
    return report.is_object() ? report : json::object();
  }
  // The entity's line without its ETag and Timestamp; "" when `get` fails.
  std::string Get(const std::string& store, const std::string& table, const std::string& pk,
                  const std::string& rk) const {
    RunResult r = At(store, {"get", table, pk, rk});
    return r.exit_code == kExitOk ? WithoutSystemMembers(r.OutLines().at(0)) : "";
  }
  // The table's entities without ETags and Timestamps, sorted.
  std::vector<std::string> Export(const std::string& store, const std::string& table) const {
    RunResult r = At(store, {"export", table});
    EXPECT_EQ(r.exit_code, kExitOk) << r.err;
    std::vector<std::string> lines;
    for (const std::string& line : r.OutLines()) lines.push_back(WithoutSystemMembers(line));
    std::sort(lines.begin(), lines.end());
    return lines;
  }
  std::vector<std::string> TableNames(const std::string& store) const {
    RunResult r = At(store, {"table", "list"});
    EXPECT_EQ(r.exit_code, kExitOk) << r.err;
    std::vector<std::string> names;
    if (r.exit_code != kExitOk) return names;
    const json list = json::parse(r.out);
    for (const json& t : list["value"]) names.push_back(t["TableName"]);
    return names;
  }
  void InsertThree(const std::string& store) const {
    MustRun(store, {"insert", "Orders", R"({"PartitionKey":"a","RowKey":"1","Item":"desk"})"});
    MustRun(store, {"insert", "Orders", R"({"PartitionKey":"a","RowKey":"2","Quantity":2})"});
    MustRun(store, {"insert", "Orders",
                    R"({"PartitionKey":"b","RowKey":"1","Price":2.5,"When@odata.type":)"
                    R"("Edm.DateTime","When":"2026-11-29T10:00:00Z","Serial@odata.type":)"
                    R"("Edm.Int64","Serial":"9007199254740993"})"});
  }

  TempDir dir_;
  CliRunner cli_{dir_};
  std::string second_ = dir_.Sub("second");
};

TEST_F(CliSyncTest, UsageErrorsNameTheOptionAndChangeNothing) {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> said;
  };
  const std::vector<Case> cases = {
      {{"sync", "Orders", "--remote", second_, "--push", "--pull"}, {"--push", "--pull"}},
      {{"sync", "Orders", "--remote", second_, "--conflicts", "newest"},
       {"--conflicts", "'newest'", "remote-wins, local-wins, last-writer or report"}},
      {{"sync", "Orders", "--remote", second_, "--overlap=-5"}, {"--overlap", "-5"}},
      {{"sync", "Orders", "--remote", second_, "--overlap", "soon"}, {"--overlap", "soon"}},
      {{"sync", "--remote", second_}, {"TABLE", "required"}},
      {{"sync", "Orders"}, {"--remote", "required"}},
      {{"sync", "Orders", "--remote", second_, "--frobnicate"}, {"--frobnicate"}},
      {{"sync", "Orders", "--remote", cli_.store()}, {"itself"}},
  };
  for (const Case& c : cases) {
    RunResult r = At(cli_.store(), c.args);
    EXPECT_EQ(r.exit_code, kExitInvalidArgument) << c.args.back() << ": " << r.err;
    EXPECT_EQ(r.err.rfind("partkv: error: InvalidArgument: ", 0), 0u) << r.err;
    for (const std::string& part : c.said)
      EXPECT_TRUE(Contains(r.err, part)) << part << ": " << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // Usage comes first, before any store is looked for.
  RunResult r =
      At(dir_.Sub("nowhere"), {"sync", "Orders", "--remote", second_, "--conflicts", "mine"});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument) << r.err;
  // Nothing was created or written on either side.
  EXPECT_EQ(TableNames(cli_.store()), std::vector<std::string>{"Orders"});
  EXPECT_TRUE(Export(second_, "Orders").empty());
}

TEST_F(CliSyncTest, ARemoteStoreIsRefusedWithoutShowingItsKey) {
  const std::string remote =
      "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" +
      std::string(kDevAccountKey) + ";TableEndpoint=http://127.0.0.1:1/devstoreaccount1;";
  RunResult r = cli_.RunRaw({"--store", remote, "sync", "Orders", "--remote", second_});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument) << r.err;
  EXPECT_TRUE(Contains(r.err, "sync needs a local store")) << r.err;
  EXPECT_TRUE(Contains(r.err, "--remote")) << r.err;
  EXPECT_FALSE(Contains(r.err, "Eby8vdM02x")) << r.err;
  // The same from $PARTKV_STORE.
  RunOptions env;
  env.env["PARTKV_STORE"] = remote;
  r = cli_.RunRaw({"sync", "Orders", "--remote", second_}, env);
  EXPECT_EQ(r.exit_code, kExitInvalidArgument) << r.err;
  EXPECT_TRUE(Contains(r.err, "sync needs a local store")) << r.err;
  EXPECT_FALSE(Contains(r.err, "Eby8vdM02x")) << r.err;
  // A --remote location that does not parse is named by its setting, never shown.
  r = At(cli_.store(), {"sync", "Orders", "--remote",
                        "AccountName=x;AccountKey=c2VjcmV0LWtleQ==;EndpointSufix=example.net"});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument) << r.err;
  EXPECT_TRUE(Contains(r.err, "--remote")) << r.err;
  EXPECT_TRUE(Contains(r.err, "EndpointSufix")) << r.err;
  EXPECT_FALSE(Contains(r.err, "c2VjcmV0")) << r.err;
}

TEST_F(CliSyncTest, MissingTablesAndStoresAreNotFoundAndATableWithoutFeedIsRefused) {
  RunResult r = At(cli_.store(), {"sync", "Nope", "--remote", second_});
  EXPECT_EQ(r.exit_code, kExitNotFound) << r.err;
  EXPECT_TRUE(Contains(r.err, "Nope")) << r.err;
  r = Sync({"--remote-table", "Elsewhere"});
  EXPECT_EQ(r.exit_code, kExitNotFound) << r.err;
  EXPECT_TRUE(Contains(r.err, "Elsewhere")) << r.err;
  r = At(cli_.store(), {"sync", "Orders", "--remote", dir_.Sub("nowhere")});
  EXPECT_EQ(r.exit_code, kExitNotFound) << r.err;
  EXPECT_TRUE(Contains(r.err, "--remote: no store at")) << r.err;
  r = At(dir_.Sub("nowhere"), {"sync", "Orders", "--remote", second_});
  EXPECT_EQ(r.exit_code, kExitNotFound) << r.err;
  // The push reads the local table's change feed.
  MustRun(cli_.store(), {"table", "create", "Plain"});
  r = At(cli_.store(), {"sync", "Plain", "--remote", second_, "--remote-table", "Orders"});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument) << r.err;
  EXPECT_TRUE(Contains(r.err, "change feed")) << r.err;
  EXPECT_TRUE(Export(second_, "Orders").empty());
}

TEST_F(CliSyncTest, PushesEveryEntityThenNothing) {
  InsertThree(cli_.store());
  json report = SyncJson({});
  for (const std::string& field : kReportFields) {
    EXPECT_TRUE(report.contains(field)) << field << " in " << report.dump();
  }
  EXPECT_EQ(report["ok"], true) << report.dump();
  EXPECT_EQ(report["table"], "Orders");
  EXPECT_EQ(report["remote_table"], "Orders");
  EXPECT_EQ(report["remote"], second_);
  EXPECT_EQ(report["direction"], "both");
  EXPECT_EQ(report["conflict_policy"], "report");
  EXPECT_EQ(report["pushed"], 3) << report.dump();
  EXPECT_EQ(report["pushed_deletes"], 0);
  EXPECT_EQ(report["pulled"], 0) << report.dump();
  EXPECT_EQ(report["conflicts"], 0);
  EXPECT_EQ(report["seeded"], true);
  EXPECT_GT(report["remote_requests"].get<uint64_t>(), 0u);
  EXPECT_GE(report["seconds"].get<double>(), 0.0);
  EXPECT_EQ(report["first_conflicts"], json::array());
  EXPECT_FALSE(report.contains("error"));
  // Each entity arrived as it is locally, its types too.
  EXPECT_EQ(Export(second_, "Orders"), Export(cli_.store(), "Orders"));
  EXPECT_EQ(Get(second_, "Orders", "b", "1"),
            R"({"PartitionKey":"b","RowKey":"1","Price":2.5,"Serial@odata.type":"Edm.Int64",)"
            R"("Serial":"9007199254740993","When@odata.type":"Edm.DateTime",)"
            R"("When":"2026-11-29T10:00:00Z"})");

  // Nothing changed since: nothing to push or pull.
  report = SyncJson({});
  EXPECT_EQ(report["pushed"], 0) << report.dump();
  EXPECT_EQ(report["pushed_deletes"], 0);
  EXPECT_EQ(report["pulled"], 0) << report.dump();
  EXPECT_EQ(report["pulled_deletes"], 0);
  EXPECT_EQ(report["conflicts"], 0);
  EXPECT_EQ(report["seeded"], false);

  // The summary on stderr, and nothing on stdout without --json.
  RunResult r = Sync({});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err.rfind("partkv: sync: Orders with Orders at " + second_ +
                            ": pushed 0 and 0 deletes, 0 skipped, ",
                        0),
            0u)
      << r.err;
  EXPECT_TRUE(Contains(r.err, "; 0 conflicts; ")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
}

TEST_F(CliSyncTest, PullsAndDeletesBothWaysAndEachDirectionAlone) {
  InsertThree(cli_.store());
  ASSERT_EQ(SyncJson({})["pushed"], 3);
  // A remote write is pulled, and not pushed back.
  MustRun(second_, {"insert", "Orders", R"({"PartitionKey":"c","RowKey":"1","Item":"lamp"})"});
  json report = SyncJson({});
  EXPECT_EQ(report["pulled"], 1) << report.dump();
  EXPECT_EQ(report["pushed"], 0) << report.dump();
  EXPECT_EQ(Get(cli_.store(), "Orders", "c", "1"),
            R"({"PartitionKey":"c","RowKey":"1","Item":"lamp"})");
  report = SyncJson({});
  EXPECT_EQ(report["pushed"], 0) << report.dump();
  EXPECT_EQ(report["pulled"], 0) << report.dump();

  // A local delete is pushed.
  MustRun(cli_.store(), {"delete", "Orders", "a", "1"});
  report = SyncJson({});
  EXPECT_EQ(report["pushed_deletes"], 1) << report.dump();
  EXPECT_EQ(At(second_, {"get", "Orders", "a", "1"}).exit_code, kExitNotFound);

  // A remote delete is seen only by listing the remote keys (--reconcile).
  MustRun(second_, {"delete", "Orders", "a", "2"});
  report = SyncJson({"--reconcile"});
  EXPECT_EQ(report["pulled_deletes"], 1) << report.dump();
  EXPECT_GT(report["remote_keys_listed"].get<uint64_t>(), 0u) << report.dump();
  EXPECT_EQ(At(cli_.store(), {"get", "Orders", "a", "2"}).exit_code, kExitNotFound);
  EXPECT_EQ(Export(second_, "Orders"), Export(cli_.store(), "Orders"));

  // --push alone leaves the remote's change where it is; --pull then brings it.
  MustRun(cli_.store(), {"insert", "Orders", R"({"PartitionKey":"d","RowKey":"1","n":1})"});
  MustRun(second_, {"insert", "Orders", R"({"PartitionKey":"e","RowKey":"1","n":2})"});
  report = SyncJson({"--push"});
  EXPECT_EQ(report["direction"], "push");
  EXPECT_EQ(report["pushed"], 1) << report.dump();
  EXPECT_EQ(report["pulled"], 0) << report.dump();
  EXPECT_EQ(Get(second_, "Orders", "d", "1"), R"({"PartitionKey":"d","RowKey":"1","n":1})");
  EXPECT_EQ(At(cli_.store(), {"get", "Orders", "e", "1"}).exit_code, kExitNotFound);
  MustRun(cli_.store(), {"insert", "Orders", R"({"PartitionKey":"f","RowKey":"1","n":3})"});
  report = SyncJson({"--pull"});
  EXPECT_EQ(report["direction"], "pull");
  EXPECT_EQ(report["pushed"], 0) << report.dump();
  EXPECT_EQ(report["pulled"], 1) << report.dump();
  EXPECT_EQ(Get(cli_.store(), "Orders", "e", "1"), R"({"PartitionKey":"e","RowKey":"1","n":2})");
  EXPECT_EQ(At(second_, {"get", "Orders", "f", "1"}).exit_code, kExitNotFound);
}

TEST_F(CliSyncTest, AConflictIsResolvedReportedAndAppendedToTheConflictsFile) {
  MustRun(cli_.store(), {"insert", "Orders", R"({"PartitionKey":"a","RowKey":"1","v":"local"})"});
  MustRun(second_, {"insert", "Orders", R"({"PartitionKey":"a","RowKey":"1","v":"remote"})"});
  // The file is appended to: what it held stays.
  const std::string file = cli_.WriteFile("conflicts.jsonl", "{\"earlier\":true}\n");
  json report = SyncJson({"--conflicts-file", file});
  EXPECT_EQ(report["ok"], true) << report.dump();
  EXPECT_EQ(report["conflicts"], 1) << report.dump();
  EXPECT_EQ(report["remote_won"], 1);
  EXPECT_EQ(report["local_won"], 0);
  EXPECT_EQ(report["set_aside"], 1);

  std::vector<std::string> lines;
  {
    const std::string text = ReadFileText(file);
    size_t begin = 0;
    for (size_t nl; (nl = text.find('\n', begin)) != std::string::npos; begin = nl + 1) {
      lines.push_back(text.substr(begin, nl - begin));
    }
    EXPECT_EQ(begin, text.size()) << "every line ends in a newline: " << text;
  }
  ASSERT_EQ(lines.size(), 2u) << ReadFileText(file);
  EXPECT_EQ(lines[0], "{\"earlier\":true}");
  const json conflict = json::parse(lines[1], nullptr, false);
  ASSERT_TRUE(conflict.is_object()) << lines[1];
  const nlohmann::ordered_json in_order = nlohmann::ordered_json::parse(lines[1]);
  std::vector<std::string> members;
  for (const auto& [name, value] : in_order.items()) members.push_back(name);
  EXPECT_EQ(members, (std::vector<std::string>{"PartitionKey", "RowKey", "winner", "set_aside",
                                               "local", "remote"}))
      << lines[1];
  EXPECT_EQ(conflict["PartitionKey"], "a");
  EXPECT_EQ(conflict["RowKey"], "1");
  EXPECT_EQ(conflict["winner"], "remote");
  EXPECT_EQ(conflict["set_aside"], true);
  EXPECT_EQ(WithoutSystemMembers(in_order["local"].dump()),
            R"({"PartitionKey":"a","RowKey":"1","v":"local"})");
  EXPECT_EQ(WithoutSystemMembers(in_order["remote"].dump()),
            R"({"PartitionKey":"a","RowKey":"1","v":"remote"})");
  // The entities as `get` prints them, ETag and Timestamp included.
  EXPECT_TRUE(conflict["local"].contains("odata.etag")) << lines[1];
  EXPECT_TRUE(conflict["remote"].contains("Timestamp")) << lines[1];
  // The report lists the same conflict.
  ASSERT_EQ(report["first_conflicts"].size(), 1u) << report.dump();
  EXPECT_EQ(report["first_conflicts"][0], conflict);

  // The remote version won; the local one is kept in OrdersConflicts.
  EXPECT_EQ(Get(cli_.store(), "Orders", "a", "1"),
            R"({"PartitionKey":"a","RowKey":"1","v":"remote"})");
  EXPECT_EQ(Get(second_, "Orders", "a", "1"), R"({"PartitionKey":"a","RowKey":"1","v":"remote"})");
  RunResult r = MustRun(cli_.store(), {"query", "OrdersConflicts", "--all"});
  ASSERT_EQ(r.OutLines().size(), 1u) << r.out;
  const json kept = json::parse(r.OutLines()[0]);
  EXPECT_EQ(kept["v"], "local") << r.out;
  EXPECT_TRUE(kept.contains("SyncConflictSide")) << r.out;

  // The human summary counts it; resolved conflicts are no failure.
  MustRun(cli_.store(), {"merge", "Orders", "--if-match", "*",
                         R"({"PartitionKey":"a","RowKey":"1","v":"local again"})"});
  MustRun(second_, {"merge", "Orders", "--if-match", "*",
                    R"({"PartitionKey":"a","RowKey":"1","v":"remote again"})"});
  r = Sync({"--conflicts-file", file});
  EXPECT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_TRUE(Contains(r.err, "; 1 conflict (0 local won, 1 remote won, 1 set aside); ")) << r.err;
  const std::string text = ReadFileText(file);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3) << text;
}

TEST_F(CliSyncTest, LocalWinsWritesTheLocalVersionToTheRemote) {
  MustRun(cli_.store(), {"insert", "Orders", R"({"PartitionKey":"a","RowKey":"1","v":"local"})"});
  MustRun(second_, {"insert", "Orders", R"({"PartitionKey":"a","RowKey":"1","v":"remote"})"});
  const std::string file = dir_.Sub("conflicts.jsonl");
  json report = SyncJson({"--conflicts", "local-wins", "--conflicts-file", file});
  EXPECT_EQ(report["conflict_policy"], "local-wins");
  EXPECT_EQ(report["conflicts"], 1) << report.dump();
  EXPECT_EQ(report["local_won"], 1);
  EXPECT_EQ(report["set_aside"], 0);
  const json conflict = json::parse(ReadFileText(file), nullptr, false);
  ASSERT_TRUE(conflict.is_object()) << ReadFileText(file);
  EXPECT_EQ(conflict["winner"], "local");
  EXPECT_EQ(conflict["set_aside"], false);
  EXPECT_EQ(Get(second_, "Orders", "a", "1"), R"({"PartitionKey":"a","RowKey":"1","v":"local"})");
  EXPECT_EQ(Get(cli_.store(), "Orders", "a", "1"),
            R"({"PartitionKey":"a","RowKey":"1","v":"local"})");
}

TEST_F(CliSyncTest, AnUnwritableConflictsFileStopsTheSyncBeforeAnythingIsSent) {
  InsertThree(cli_.store());
  const std::string file = dir_.Sub("missing/conflicts.jsonl");
  RunResult r = Sync({"--conflicts-file", file});
  EXPECT_EQ(r.exit_code, kExitOther) << r.err;
  EXPECT_EQ(r.err.rfind("partkv: error: IOError: --conflicts-file: cannot open '" + file + "'", 0),
            0u)
      << r.err;
  EXPECT_TRUE(Export(second_, "Orders").empty());
  // Nothing was recorded either: the next sync is the pair's first.
  json report = SyncJson({});
  EXPECT_EQ(report["seeded"], true) << report.dump();
  EXPECT_EQ(report["pushed"], 3) << report.dump();
}

TEST_F(CliSyncTest, AConflictsFileThatCannotBeWrittenFailsTheSyncAfterItFinished) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  MustRun(cli_.store(), {"insert", "Orders", R"({"PartitionKey":"a","RowKey":"1","v":"local"})"});
  MustRun(second_, {"insert", "Orders", R"({"PartitionKey":"a","RowKey":"1","v":"remote"})"});
  RunResult r = Sync({"--conflicts", "local-wins", "--conflicts-file", "/dev/full"});
  EXPECT_EQ(r.exit_code, kExitOther) << r.err;
  EXPECT_TRUE(Contains(r.err, "; 1 conflict (1 local won, 0 remote won, 0 set aside); ")) << r.err;
  EXPECT_TRUE(Contains(r.err,
                       "partkv: error: IOError: --conflicts-file: writing '/dev/full' "
                       "failed: "))
      << r.err;
  EXPECT_TRUE(Contains(r.err, "the sync itself finished")) << r.err;
  EXPECT_EQ(Get(second_, "Orders", "a", "1"), R"({"PartitionKey":"a","RowKey":"1","v":"local"})");
}

TEST_F(CliSyncTest, AStoppedSyncPrintsItsSummaryThenFailsWithTheError) {
  // A local table without Azure's limits holds a RowKey the remote (azure-table) refuses.
  MustRun(cli_.store(), {"table", "create", "Loose", "--change-feed", "--profile", "none"});
  MustRun(cli_.store(), {"insert", "Loose", R"({"PartitionKey":"a","RowKey":"x#1","n":1})"});
  RunResult r = At(cli_.store(),
                   {"sync", "Loose", "--remote", second_, "--remote-table", "Orders", "--json"});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument) << r.err;
  const std::vector<std::string> err = [&] {
    std::vector<std::string> lines;
    size_t begin = 0;
    for (size_t nl; (nl = r.err.find('\n', begin)) != std::string::npos; begin = nl + 1) {
      lines.push_back(r.err.substr(begin, nl - begin));
    }
    return lines;
  }();
  ASSERT_EQ(err.size(), 2u) << r.err;
  EXPECT_EQ(err[0].rfind("partkv: sync: Loose with Orders at " + second_ + ": ", 0), 0u) << r.err;
  EXPECT_TRUE(err[0].ends_with("; stopped")) << r.err;
  EXPECT_EQ(err[1].rfind("partkv: error: InvalidArgument: ", 0), 0u) << r.err;
  EXPECT_TRUE(Contains(err[1], "x#1")) << r.err;
  const json report = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << r.out;
  EXPECT_EQ(report["ok"], false);
  EXPECT_EQ(report["error"]["code"], "InvalidArgument") << r.out;
  EXPECT_TRUE(Contains(report["error"]["message"].get<std::string>(), "x#1")) << r.out;
}

TEST_F(CliSyncTest, ProgressOnlyOnATerminal) {
  InsertThree(cli_.store());
  RunOptions tty;
  tty.stderr_is_terminal = true;
  RunResult r = Sync({}, tty);
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_TRUE(Contains(r.err, "\r\x1b[Ksyncing Orders (push): ")) << r.err;
  EXPECT_TRUE(Contains(r.err, "partkv: sync: Orders with Orders at ")) << r.err;
}

TEST_F(CliSyncTest, TwoTablesOfOneStore) {
  InsertThree(cli_.store());
  MustRun(cli_.store(), {"table", "create", "Mirror"});
  RunResult r = At(cli_.store(), {"sync", "Orders", "--remote", cli_.store() + "/",
                                  "--remote-table", "Mirror", "--json"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_EQ(json::parse(r.out)["pushed"], 3) << r.out;
  EXPECT_EQ(Export(cli_.store(), "Mirror"), Export(cli_.store(), "Orders"));
}

TEST_F(CliSyncTest, SyncsWithAServedStoreWithoutShowingItsKey) {
  ServeChild server(dir_.Sub("served"));
  ASSERT_GT(server.port(), 0) << "partkv serve did not listen";
  const std::string remote = server.connection_string();
  MustRun(remote, {"table", "create", "Orders"});
  InsertThree(cli_.store());
  RunResult r = At(cli_.store(), {"sync", "Orders", "--remote", remote, "--json"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_FALSE(Contains(r.out + r.err, "Eby8vdM02x")) << r.out << r.err;
  const json report = json::parse(r.out);
  EXPECT_EQ(report["pushed"], 3) << r.out;
  EXPECT_TRUE(Contains(report["remote"].get<std::string>(), "AccountKey=<redacted>")) << r.out;
  EXPECT_TRUE(Contains(r.err, "AccountKey=<redacted>")) << r.err;
  EXPECT_EQ(Export(remote, "Orders"), Export(cli_.store(), "Orders"));
  MustRun(remote, {"insert", "Orders", R"({"PartitionKey":"z","RowKey":"1","n":1})"});
  r = At(cli_.store(), {"sync", "Orders", "--remote", remote, "--json"});
  ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  EXPECT_EQ(json::parse(r.out)["pushed"], 0) << r.out;
  EXPECT_EQ(json::parse(r.out)["pulled"], 1) << r.out;
  EXPECT_EQ(Get(cli_.store(), "Orders", "z", "1"), R"({"PartitionKey":"z","RowKey":"1","n":1})");
}

}  // namespace
}  // namespace partkv::testing
