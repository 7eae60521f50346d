// partkv changes and the change feed and time to live flags of `table create` and `table set`:
// the JSON Lines of both modes, --from with the token printed after "next:", --from-now, the
// --json page form, --follow run as a child process and stopped by a signal or a closed stdout,
// the exit statuses (2 for bad values and a table without a feed, 9 for a trimmed position),
// the origin of a change a sync wrote, `table sweep`, and the feed and expiry figures of `stats`.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "partkv/partkv.h"
#include "tests/testing/status_matchers.h"
#include "tests/tools/cli/cli_runner.h"
#include "tools/cli/exit_codes.h"

namespace partkv::testing {
namespace {

using cli::kExitInvalidArgument;
using cli::kExitOk;
using cli::kExitTrimmed;
using nlohmann::json;
using nlohmann::ordered_json;

// How long a test waits for a child's line or its exit before failing (no sleeping: the wait
// ends as soon as the line or the exit comes).
constexpr std::chrono::seconds kChildDeadline{30};

// `partkv --store STORE changes ... --follow` as a child process whose stdout and stderr the test
// reads through pipes. The destructor kills and reaps a child still running.
class FollowChild {
 public:
  FollowChild(const std::string& store, const std::vector<std::string>& args) {
    std::vector<std::string> all = {CliRunner::BinaryPath(), "--store", store};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return;
    std::fflush(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      unsetenv("PARTKV_STORE");
      dup2(out[1], STDOUT_FILENO);
      dup2(err[1], STDERR_FILENO);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    close(err[1]);
    out_ = out[0];
    err_ = err[0];
  }
  FollowChild(const FollowChild&) = delete;
  FollowChild& operator=(const FollowChild&) = delete;
  ~FollowChild() {
    if (pid_ > 0 && !exit_code_) {
      kill(pid_, SIGKILL);
      Wait();
    }
    CloseStdout();
    if (err_ >= 0) close(err_);
  }

  bool started() const { return pid_ > 0 && out_ >= 0; }

  // The next line of the child's stdout, or nullopt when it ends or the deadline passes first.
  std::optional<std::string> ReadLine() {
    const auto deadline = std::chrono::steady_clock::now() + kChildDeadline;
    while (true) {
      if (size_t nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{out_, POLLIN, 0};
      int n = poll(&p, 1, static_cast<int>(left.count()));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return std::nullopt;
      char chunk[4096];
      ssize_t got = read(out_, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<size_t>(got));
    }
  }

  // Whether the child is still running (it has not exited).
  bool Running() {
    if (exit_code_) return false;
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r == 0;
  }

  void Signal(int sig) { kill(pid_, sig); }
  void CloseStdout() {
    if (out_ >= 0) close(out_);
    out_ = -1;
  }

  // The exit status once the child exits (128 + signal when killed), or nullopt at the deadline.
  std::optional<int> Wait() {
    const auto deadline = std::chrono::steady_clock::now() + kChildDeadline;
    while (!exit_code_) {
      if (!Running() && exit_code_) break;
      if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
      // Draining stderr blocks until the child writes or exits: no busy loop.
      pollfd p{err_, POLLIN, 0};
      if (poll(&p, 1, 100) > 0) DrainStderr();
    }
    DrainStderr();
    return exit_code_;
  }

  const std::string& err() const { return err_text_; }

 private:
  void DrainStderr() {
    char chunk[4096];
    while (true) {
      pollfd p{err_, POLLIN, 0};
      if (poll(&p, 1, 0) <= 0) return;
      ssize_t got = read(err_, chunk, sizeof chunk);
      if (got <= 0) return;
      err_text_.append(chunk, static_cast<size_t>(got));
    }
  }

  pid_t pid_ = -1;
  int out_ = -1;
  int err_ = -1;
  std::string buffer_;
  std::string err_text_;
  std::optional<int> exit_code_;
};

// The token of the "next: TOKEN" line on stderr ("" when there is none).
std::string NextToken(const std::string& err) {
  std::smatch m;
  static const std::regex kNext(R"((^|\n)next: ([A-Za-z0-9_-]+)\n)");
  return std::regex_search(err, m, kNext) ? m[2].str() : "";
}

// One change line with its time and etag checked and taken out, and the entity's ETag and
// Timestamp taken out: {"seq":N,"op":"...","entity":{...}}.
std::string Content(const std::string& line) {
  ordered_json j = ordered_json::parse(line);
  EXPECT_TRUE(j["time"].is_string()) << line;
  EXPECT_TRUE(std::regex_match(j["time"].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z)")))
      << line;
  EXPECT_TRUE(j["etag"].is_string() && !j["etag"].get<std::string>().empty()) << line;
  j.erase("time");
  j.erase("etag");
  j["entity"].erase("odata.etag");
  j["entity"].erase("Timestamp@odata.type");
  j["entity"].erase("Timestamp");
  return j.dump();
}

std::vector<std::string> Contents(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const std::string& line : lines) out.push_back(Content(line));
  return out;
}

// The seq of each line, which must increase.
void ExpectSeqIncreasing(const std::vector<std::string>& lines) {
  uint64_t last = 0;
  for (const std::string& line : lines) {
    uint64_t seq = json::parse(line)["seq"].get<uint64_t>();
    EXPECT_GT(seq, last) << line;
    last = seq;
  }
}

class CliChangesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RunResult r = cli_.Run({"table", "create", "Orders", "--change-feed"});
    ASSERT_EQ(r.exit_code, kExitOk) << r.err;
  }

  RunResult MustRun(const std::vector<std::string>& args, const std::string& input = "") const {
    RunResult r = cli_.Run(args, input);
    EXPECT_EQ(r.exit_code, kExitOk) << r.err;
    return r;
  }

  // Inserts a/1 and a/2 (ttl -1), merges a/1, deletes a/2 and imports b/1: five changes.
  void WriteFiveChanges() const {
    MustRun({"insert", "Orders", R"({"PartitionKey":"a","RowKey":"1","n":1})"});
    MustRun({"insert", "Orders", R"({"PartitionKey":"a","RowKey":"2","n":2,"ttl":-1})"});
    MustRun({"merge", "Orders", "--if-match", "*", R"({"PartitionKey":"a","RowKey":"1","m":3})"});
    MustRun({"delete", "Orders", "a", "2"});
    MustRun({"import", "Orders",
             cli_.WriteFile("b.jsonl", R"({"PartitionKey":"b","RowKey":"1","s":"x"})"
                                       "\n")});
  }

  TempDir dir_;
  CliRunner cli_{dir_};
};

TEST_F(CliChangesTest, CreateAndListShowTheFeedAndTtl) {
  RunResult r = MustRun({"table", "create", "Feeds", "--change-feed", "--feed-retention", "12h",
                         "--feed-max-bytes", "1MiB", "--ttl", "-1"});
  json t = json::parse(r.out);
  EXPECT_EQ(t["change_feed"],
            json::parse(R"({"enabled":true,"retention_seconds":43200,"max_bytes":1048576})"));
  EXPECT_EQ(t["ttl_seconds"], -1);
  r = MustRun({"table", "create", "Plain", "--ttl", "7d"});
  t = json::parse(r.out);
  EXPECT_EQ(t["change_feed"]["enabled"], false);
  EXPECT_EQ(t["ttl_seconds"], 7 * 86400);
  r = MustRun({"table", "list"});
  json list = json::parse(r.out)["value"];
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0]["TableName"], "Feeds");
  EXPECT_EQ(list[0]["change_feed"]["retention_seconds"], 43200);
  EXPECT_EQ(list[1]["TableName"], "Orders");
  EXPECT_EQ(list[1]["change_feed"],
            json::parse(R"({"enabled":true,"retention_seconds":0,"max_bytes":0})"));
  EXPECT_EQ(list[1]["ttl_seconds"], 0);
  EXPECT_EQ(list[2]["ttl_seconds"], 7 * 86400);
  // Units: s, m, h, d and plain seconds; B, KiB, MiB, GiB and plain bytes.
  for (auto [retention, seconds] : {std::pair{"90s", 90}, std::pair{"5m", 300},
                                    std::pair{"2d", 172800}, std::pair{"600", 600}}) {
    r = MustRun({"table", "set", "Feeds", "--feed-retention", retention});
    EXPECT_EQ(json::parse(r.out)["change_feed"]["retention_seconds"], seconds) << retention;
  }
  for (auto [size, bytes] : {std::pair{"100B", 100ull}, std::pair{"2KiB", 2048ull},
                             std::pair{"1GiB", 1ull << 30}, std::pair{"4096", 4096ull}}) {
    r = MustRun({"table", "set", "Feeds", "--feed-max-bytes", size});
    EXPECT_EQ(json::parse(r.out)["change_feed"]["max_bytes"], bytes) << size;
  }
  r = MustRun({"table", "set", "Feeds", "--ttl", "off"});
  EXPECT_EQ(json::parse(r.out)["ttl_seconds"], 0);
  r = MustRun({"table", "set", "Feeds", "--ttl=-1"});
  EXPECT_EQ(json::parse(r.out)["ttl_seconds"], -1);
}

TEST_F(CliChangesTest, BadValuesAreUsageErrorsNamingTheFlagAndTheValue) {
  struct Case {
    std::vector<std::string> args;
    std::string flag;
    std::string value;
  };
  const std::vector<Case> cases = {
      {{"table", "create", "Bad", "--change-feed", "--feed-retention", "7x"},
       "--feed-retention",
       "7x"},
      {{"table", "create", "Bad", "--change-feed", "--feed-retention", "d"},
       "--feed-retention",
       "d"},
      {{"table", "create", "Bad", "--change-feed", "--feed-retention=-5s"},
       "--feed-retention",
       "-5s"},
      {{"table", "create", "Bad", "--change-feed", "--feed-max-bytes", "1GB"},
       "--feed-max-bytes",
       "1GB"},
      {{"table", "create", "Bad", "--change-feed", "--feed-max-bytes", "99999999999999999999"},
       "--feed-max-bytes",
       "99999999999999999999"},
      {{"table", "create", "Bad", "--ttl", "forever"}, "--ttl", "forever"},
      {{"table", "create", "Bad", "--ttl", "0"}, "--ttl", "0"},
      {{"table", "create", "Bad", "--ttl=-2"}, "--ttl", "-2"},
      {{"table", "set", "Orders", "--change-feed", "maybe"}, "--change-feed", "maybe"},
      {{"table", "set", "Orders", "--feed-retention", "1w"}, "--feed-retention", "1w"},
      {{"table", "set", "Orders", "--ttl", "7y"}, "--ttl", "7y"},
      {{"changes", "Orders", "--mode", "newest"}, "--mode", "newest"},
      {{"changes", "Orders", "--page-size", "0"}, "--page-size", "0"},
      {{"changes", "Orders", "--page-size", "1001"}, "--page-size", "1001"},
  };
  for (const Case& c : cases) {
    RunResult r = cli_.Run(c.args);
    EXPECT_EQ(r.exit_code, kExitInvalidArgument) << c.args.back() << ": " << r.err;
    EXPECT_NE(r.err.find(c.flag), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.value), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  }
  // Retention without a feed to retain.
  for (const char* flag : {"--feed-retention", "--feed-max-bytes"}) {
    RunResult r = cli_.Run({"table", "create", "Bad", flag, "1"});
    EXPECT_EQ(r.exit_code, kExitInvalidArgument) << r.err;
    EXPECT_NE(r.err.find(std::string(flag) + " sets the change feed's retention: it needs "
                                             "--change-feed"),
              std::string::npos)
        << r.err;
  }
  RunResult r = cli_.Run({"table", "set", "Orders"});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument);
  EXPECT_NE(r.err.find("nothing to change"), std::string::npos) << r.err;
  r = cli_.Run({"changes", "Orders", "--from", "AAAA", "--from-now"});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument);
  r = cli_.Run({"changes", "Orders", "--from=AAAAAAAAAAAA"});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument);
  EXPECT_NE(r.err.find("token"), std::string::npos) << r.err;
  // No table was created by a failed command.
  r = MustRun({"table", "list"});
  EXPECT_EQ(json::parse(r.out)["value"].size(), 1u);
}

TEST_F(CliChangesTest, LatestAndAllModesPrintEachChangeAsAJsonLine) {
  WriteFiveChanges();
  RunResult all = MustRun({"changes", "Orders", "--mode", "all"});
  std::vector<std::string> lines = all.OutLines();
  ASSERT_EQ(lines.size(), 5u) << all.out;
  ExpectSeqIncreasing(lines);
  EXPECT_EQ(
      Contents(lines),
      (std::vector<std::string>{
          R"({"seq":1,"op":"insert","entity":{"PartitionKey":"a","RowKey":"1","n":1}})",
          R"({"seq":2,"op":"insert","entity":{"PartitionKey":"a","RowKey":"2","n":2,"ttl":-1}})",
          R"({"seq":3,"op":"merge","entity":{"PartitionKey":"a","RowKey":"1","m":3,"n":1}})",
          R"({"seq":4,"op":"delete","entity":{"PartitionKey":"a","RowKey":"2"}})",
          R"({"seq":5,"op":"insert","entity":{"PartitionKey":"b","RowKey":"1","s":"x"}})",
      }));
  EXPECT_FALSE(NextToken(all.err).empty()) << all.err;
  // The delete's etag is the version it removed: the second insert's.
  EXPECT_EQ(json::parse(lines[3])["etag"], json::parse(lines[1])["etag"]);

  // The default: from the start, the newest version of each entity, deletes left out.
  RunResult latest = MustRun({"changes", "Orders"});
  lines = latest.OutLines();
  ASSERT_EQ(lines.size(), 2u) << latest.out;
  ExpectSeqIncreasing(lines);
  EXPECT_EQ(Contents(lines),
            (std::vector<std::string>{
                R"({"seq":3,"op":"merge","entity":{"PartitionKey":"a","RowKey":"1","m":3,"n":1}})",
                R"({"seq":5,"op":"insert","entity":{"PartitionKey":"b","RowKey":"1","s":"x"}})",
            }));
  EXPECT_EQ(NextToken(latest.err), NextToken(all.err));
  // The etag is the entity's, as `get` prints it.
  json got = json::parse(MustRun({"get", "Orders", "a", "1"}).out);
  json change = json::parse(lines[0]);
  EXPECT_EQ(change["etag"], got["odata.etag"]);
  EXPECT_EQ(change["entity"]["odata.etag"], got["odata.etag"]);
  EXPECT_EQ(change["entity"]["Timestamp"], got["Timestamp"]);
  EXPECT_EQ(change["time"], got["Timestamp"]);
  // --from-start says the same as the default; small pages change nothing.
  RunResult paged = MustRun({"changes", "Orders", "--from-start", "--page-size", "1"});
  EXPECT_EQ(paged.out, latest.out);
}

// The tool has no way to write as a sync: the changes are written through the library, with
// WriteOptions::origin, as a sync writes them, and the store closed before the tool reads it.
TEST_F(CliChangesTest, AChangeASyncWroteSaysSoAndAnApplicationsAsBefore) {
  MustRun({"insert", "Orders", R"({"PartitionKey":"a","RowKey":"1","n":1})"});
  {
    auto store = Store::Open(cli_.store());
    ASSERT_OK(store);
    auto table = store->OpenTable("Orders");
    ASSERT_OK(table);
    const WriteOptions from_sync{.origin = WriteOrigin::kSync};
    Entity e("a", "1");
    e.Set("n", Value::Int32(2));
    ASSERT_OK(table->Replace(e, IfMatch::Any(), from_sync));
    ASSERT_OK(table->Delete("a", "1", IfMatch::Any(), from_sync));
  }
  MustRun({"insert", "Orders", R"({"PartitionKey":"b","RowKey":"1","n":3})"});
  RunResult all = MustRun({"changes", "Orders", "--mode", "all"});
  std::vector<std::string> lines = all.OutLines();
  EXPECT_EQ(
      Contents(lines),
      (std::vector<std::string>{
          R"({"seq":1,"op":"insert","entity":{"PartitionKey":"a","RowKey":"1","n":1}})",
          R"({"seq":2,"op":"replace","origin":"sync","entity":{"PartitionKey":"a","RowKey":"1","n":2}})",
          R"({"seq":3,"op":"delete","origin":"sync","entity":{"PartitionKey":"a","RowKey":"1"}})",
          R"({"seq":4,"op":"insert","entity":{"PartitionKey":"b","RowKey":"1","n":3}})",
      }));
  // The application's lines are the same as before origins: no "origin" member at all.
  ASSERT_EQ(lines.size(), 4u) << all.out;
  EXPECT_EQ(lines[0].find("origin"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[3].find("origin"), std::string::npos) << lines[3];
  // The same in a --json page.
  RunResult page = MustRun({"changes", "Orders", "--mode", "all", "--json"});
  json changes = json::parse(page.out)["changes"];
  ASSERT_EQ(changes.size(), 4u) << page.out;
  EXPECT_EQ(changes[1]["origin"], "sync");
  EXPECT_EQ(changes[2]["origin"], "sync");
  EXPECT_FALSE(changes[0].contains("origin")) << page.out;
  EXPECT_FALSE(changes[3].contains("origin")) << page.out;
}

TEST_F(CliChangesTest, FromTheNextTokenAndFromNowReadOnlyNewChanges) {
  WriteFiveChanges();
  RunResult first = MustRun({"changes", "Orders", "--mode", "all"});
  std::string token = NextToken(first.err);
  ASSERT_FALSE(token.empty()) << first.err;
  RunResult none = MustRun({"changes", "Orders", "--from", token});
  EXPECT_EQ(none.out, "");
  EXPECT_EQ(NextToken(none.err), token);

  RunResult now = MustRun({"changes", "Orders", "--from-now"});
  EXPECT_EQ(now.out, "");
  std::string now_token = NextToken(now.err);
  ASSERT_FALSE(now_token.empty()) << now.err;

  MustRun({"upsert", "Orders", R"({"PartitionKey":"a","RowKey":"1","n":10})"});
  MustRun({"delete", "Orders", "b", "1"});
  for (const std::string& from : {token, now_token}) {
    RunResult r = MustRun({"changes", "Orders", "--from=" + from, "--mode", "all"});
    EXPECT_EQ(Contents(r.OutLines()),
              (std::vector<std::string>{
                  R"({"seq":6,"op":"replace","entity":{"PartitionKey":"a","RowKey":"1","n":10}})",
                  R"({"seq":7,"op":"delete","entity":{"PartitionKey":"b","RowKey":"1"}})",
              }));
    r = MustRun({"changes", "Orders", "--from=" + from});
    EXPECT_EQ(Contents(r.OutLines()),
              (std::vector<std::string>{
                  R"({"seq":6,"op":"replace","entity":{"PartitionKey":"a","RowKey":"1","n":10}})",
              }));
  }
}

TEST_F(CliChangesTest, JsonPrintsOnePageALine) {
  WriteFiveChanges();
  RunResult r = MustRun({"changes", "Orders", "--mode", "all", "--page-size", "2", "--json"});
  std::vector<std::string> pages = r.OutLines();
  ASSERT_EQ(pages.size(), 3u) << r.out;
  std::vector<std::string> changes;
  for (size_t i = 0; i < pages.size(); ++i) {
    json page = json::parse(pages[i]);
    ASSERT_TRUE(page["changes"].is_array()) << pages[i];
    EXPECT_LE(page["changes"].size(), 2u);
    EXPECT_TRUE(page["continuation"].is_string()) << pages[i];
    EXPECT_EQ(page["caught_up"], i + 1 == pages.size()) << pages[i];
    for (const json& c : page["changes"]) changes.push_back(c.dump());
  }
  EXPECT_EQ(json::parse(pages.back())["continuation"], NextToken(r.err));
  RunResult lines = MustRun({"changes", "Orders", "--mode", "all"});
  std::vector<std::string> expected;
  for (const std::string& line : lines.OutLines()) expected.push_back(json::parse(line).dump());
  EXPECT_EQ(changes, expected);
  // An empty feed read from now: one caught-up page without changes.
  r = MustRun({"changes", "Orders", "--from-now", "--json"});
  json page = json::parse(r.out);
  EXPECT_EQ(page["changes"], json::array());
  EXPECT_EQ(page["caught_up"], true);
}

TEST_F(CliChangesTest, FollowPrintsWhatIsThereWaitsAndStopsOnASignal) {
  WriteFiveChanges();
  for (int sig : {SIGTERM, SIGINT}) {
    FollowChild child(cli_.store(), {"changes", "Orders", "--mode", "all", "--follow"});
    ASSERT_TRUE(child.started());
    std::vector<std::string> lines;
    for (int i = 0; i < 5; ++i) {
      std::optional<std::string> line = child.ReadLine();
      ASSERT_TRUE(line) << "line " << i << " never came";
      lines.push_back(*line);
    }
    EXPECT_EQ(json::parse(lines[4])["seq"], 5);
    // Caught up, the child waits (its lines flushed) rather than exiting.
    EXPECT_TRUE(child.Running());
    // It holds the store meanwhile: one process at a time may open it.
    RunResult busy = cli_.Run({"insert", "Orders", R"({"PartitionKey":"c","RowKey":"1"})"});
    EXPECT_EQ(busy.exit_code, cli::kExitOther) << busy.err;
    EXPECT_NE(busy.err.find("Busy"), std::string::npos) << busy.err;
    child.Signal(sig);
    std::optional<int> code = child.Wait();
    ASSERT_TRUE(code) << "the child did not stop after signal " << sig;
    EXPECT_EQ(*code, kExitOk) << child.err();
    std::string token = NextToken(child.err());
    ASSERT_FALSE(token.empty()) << child.err();
    // The token printed at the stop resumes after the last change printed.
    MustRun({"upsert", "Orders",
             "{\"PartitionKey\":\"c\",\"RowKey\":\"" + std::to_string(sig) + "\"}"});
    RunResult next = MustRun({"changes", "Orders", "--from=" + token, "--mode", "all"});
    ASSERT_EQ(next.OutLines().size(), 1u) << next.out;
    EXPECT_EQ(json::parse(next.out)["entity"]["RowKey"], std::to_string(sig));
  }
}

TEST_F(CliChangesTest, FollowStopsWhenStdoutCloses) {
  WriteFiveChanges();
  FollowChild child(cli_.store(), {"changes", "Orders", "--follow", "--json"});
  ASSERT_TRUE(child.started());
  std::optional<std::string> page = child.ReadLine();
  ASSERT_TRUE(page);
  EXPECT_EQ(json::parse(*page)["caught_up"], true);
  child.CloseStdout();
  std::optional<int> code = child.Wait();
  ASSERT_TRUE(code) << "the child did not notice its stdout closing";
  EXPECT_EQ(*code, kExitOk) << child.err();
  EXPECT_FALSE(NextToken(child.err()).empty()) << child.err();
}

TEST_F(CliChangesTest, ATableWithoutAFeedIsAnInvalidArgument) {
  MustRun({"table", "create", "Plain"});
  RunResult r = cli_.Run({"changes", "Plain"});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument);
  EXPECT_NE(r.err.find("keeps no change feed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--change-feed"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  r = cli_.Run({"changes", "Missing"});
  EXPECT_EQ(r.exit_code, cli::kExitNotFound) << r.err;
}

TEST_F(CliChangesTest, TableSetTurnsTheFeedOnAndOff) {
  std::string token = NextToken(MustRun({"changes", "Orders"}).err);
  MustRun({"insert", "Orders", R"({"PartitionKey":"a","RowKey":"1"})"});
  RunResult r = MustRun({"table", "set", "Orders", "--change-feed", "off"});
  EXPECT_EQ(json::parse(r.out)["change_feed"]["enabled"], false);
  r = cli_.Run({"changes", "Orders"});
  EXPECT_EQ(r.exit_code, kExitInvalidArgument) << r.err;
  // Retention alone leaves the feed as it is: off.
  r = MustRun({"table", "set", "Orders", "--feed-retention", "1h"});
  EXPECT_EQ(json::parse(r.out)["change_feed"],
            json::parse(R"({"enabled":false,"retention_seconds":3600,"max_bytes":0})"));
  MustRun({"insert", "Orders", R"({"PartitionKey":"a","RowKey":"2"})"});
  r = MustRun({"table", "set", "Orders", "--change-feed", "on"});
  EXPECT_EQ(json::parse(r.out)["change_feed"],
            json::parse(R"({"enabled":true,"retention_seconds":3600,"max_bytes":0})"));
  // A token from before the feed was off would miss the changes made meanwhile: Trimmed.
  r = cli_.Run({"changes", "Orders", "--from=" + token});
  EXPECT_EQ(r.exit_code, kExitTrimmed) << r.err;
  EXPECT_NE(r.err.find("oldest position kept"), std::string::npos) << r.err;
  // Retention alone leaves it on; the feed records again.
  r = MustRun({"table", "set", "Orders", "--feed-max-bytes", "1GiB"});
  EXPECT_EQ(json::parse(r.out)["change_feed"]["enabled"], true);
  MustRun({"insert", "Orders", R"({"PartitionKey":"a","RowKey":"3"})"});
  r = MustRun({"changes", "Orders"});
  ASSERT_EQ(r.OutLines().size(), 1u) << r.out;
  EXPECT_EQ(json::parse(r.out)["entity"]["RowKey"], "3");
  r = cli_.Run({"table", "set", "Missing", "--ttl", "1d"});
  EXPECT_EQ(r.exit_code, cli::kExitNotFound) << r.err;
}

// Random text of `n` characters that does not compress.
std::string Noise(size_t n, std::mt19937& rng) {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string s(n, ' ');
  for (char& c : s) c = kChars[rng() % (sizeof kChars - 1)];
  return s;
}

TEST_F(CliChangesTest, APositionRetentionRemovedExitsNine) {
  MustRun({"table", "create", "Big", "--change-feed", "--feed-max-bytes", "64KiB"});
  std::string token = NextToken(MustRun({"changes", "Big"}).err);
  ASSERT_FALSE(token.empty());
  std::mt19937 rng(7);
  std::string rows;
  for (int i = 0; i < 6; ++i) {
    rows += "{\"PartitionKey\":\"p\",\"RowKey\":\"" + std::to_string(i) + "\",\"a\":\"" +
            Noise(30000, rng) + "\",\"b\":\"" + Noise(30000, rng) + "\"}\n";
  }
  // Each row upserted twice: the second replaces the first, whose entry then holds its 60 KB
  // (an entry refers to the row's current version instead of holding it).
  for (int pass = 0; pass < 2; ++pass) {
    for (const std::string& row : RunResult{0, rows, ""}.OutLines()) {
      MustRun({"upsert", "Big"}, row);
    }
  }
  RunResult sweep = MustRun({"table", "sweep", "Big"});
  json report = json::parse(sweep.out);
  EXPECT_EQ(report["table"], "Big");
  EXPECT_TRUE(report["feed_entries_trimmed"].is_number()) << sweep.out;
  EXPECT_EQ(report["expiries_recorded"], 0);
  json stats = json::parse(MustRun({"stats", "Big", "--json"}).out);
  EXPECT_GT(stats["change_feed"]["first_seq"].get<uint64_t>(), 1u) << stats.dump();
  EXPECT_EQ(stats["change_feed"]["next_seq"], 13);

  RunResult r = cli_.Run({"changes", "Big", "--from=" + token, "--mode", "all"});
  EXPECT_EQ(r.exit_code, kExitTrimmed) << r.err;
  EXPECT_NE(r.err.find("partkv: error: Trimmed: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("oldest position kept"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  // From the start reads what is kept.
  r = MustRun({"changes", "Big", "--mode", "all"});
  ASSERT_FALSE(r.OutLines().empty());
  EXPECT_EQ(json::parse(r.OutLines().front())["seq"], stats["change_feed"]["first_seq"]);
}

TEST_F(CliChangesTest, StatsShowTheFeedAndTheTimeToLive) {
  WriteFiveChanges();
  MustRun({"table", "set", "Orders", "--feed-retention", "7d", "--feed-max-bytes", "1GiB", "--ttl",
           "30d"});
  json j = json::parse(MustRun({"stats", "Orders", "--json"}).out);
  EXPECT_EQ(j["entities"], 2);
  EXPECT_EQ(j["expired_entities"], 0);
  EXPECT_EQ(j["ttl_seconds"], 30 * 86400);
  ASSERT_TRUE(j["change_feed"].is_object()) << j.dump();
  EXPECT_GT(j["change_feed"]["bytes"].get<uint64_t>(), 0u);
  EXPECT_EQ(j["change_feed"]["first_seq"], 1);
  EXPECT_EQ(j["change_feed"]["next_seq"], 6);
  EXPECT_EQ(j["change_feed"]["retention_seconds"], 7 * 86400);
  EXPECT_EQ(j["change_feed"]["max_bytes"], 1ull << 30);
  RunResult chart = MustRun({"stats", "Orders"});
  EXPECT_TRUE(std::regex_search(
      chart.out, std::regex(R"(\nchange feed: [0-9.]+ (B|KiB|MiB), positions 1 \(oldest kept\) )"
                            R"(to 6 \(next\); retention 7d, max 1\.0 GiB\n)")))
      << chart.out;
  EXPECT_NE(chart.out.find("\ntime to live: 30d; 0 expired entities not yet reclaimed\n"),
            std::string::npos)
      << chart.out;

  // A table with neither: JSON says so, the chart adds nothing.
  MustRun({"table", "create", "Plain"});
  j = json::parse(MustRun({"stats", "Plain", "--json"}).out);
  EXPECT_TRUE(j["change_feed"].is_null());
  EXPECT_EQ(j["ttl_seconds"], 0);
  EXPECT_EQ(j["expired_entities"], 0);
  chart = MustRun({"stats", "Plain"});
  EXPECT_EQ(chart.out.find("change feed"), std::string::npos) << chart.out;
  EXPECT_EQ(chart.out.find("time to live"), std::string::npos) << chart.out;
}

TEST_F(CliChangesTest, AnEntityWhoseTtlIsMinusOneStays) {
  MustRun({"table", "create", "Sessions", "--change-feed", "--ttl", "1d"});
  MustRun({"insert", "Sessions", R"({"PartitionKey":"s","RowKey":"keep","ttl":-1})"});
  MustRun({"insert", "Sessions", R"({"PartitionKey":"s","RowKey":"day"})"});
  RunResult sweep = MustRun({"table", "sweep", "Sessions"});
  EXPECT_EQ(json::parse(sweep.out)["expiries_recorded"], 0);
  MustRun({"get", "Sessions", "s", "keep"});
  MustRun({"get", "Sessions", "s", "day"});
  RunResult all = MustRun({"changes", "Sessions", "--mode", "all"});
  EXPECT_EQ(Contents(all.OutLines()),
            (std::vector<std::string>{
                R"({"seq":1,"op":"insert","entity":{"PartitionKey":"s","RowKey":"keep","ttl":-1}})",
                R"({"seq":2,"op":"insert","entity":{"PartitionKey":"s","RowKey":"day"}})",
            }));
  json list = json::parse(MustRun({"table", "list"}).out)["value"];
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[1]["TableName"], "Sessions");
  EXPECT_EQ(list[1]["ttl_seconds"], 86400);
  json stats = json::parse(MustRun({"stats", "Sessions", "--json"}).out);
  EXPECT_EQ(stats["ttl_seconds"], 86400);
  EXPECT_EQ(stats["entities"], 2);
  EXPECT_EQ(stats["expired_entities"], 0);
}

}  // namespace
}  // namespace partkv::testing
