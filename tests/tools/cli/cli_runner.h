// CliRunner: runs the built partkv binary as a child process, the way a user or a script does,
// and returns its exit status, stdout and stderr. Each test owns a TempDir; the runner keeps its
// store, input and output files there, so tests never share a path.
//
//   CliRunner cli(dir);
//   RunResult r = cli.Run({"insert", "Orders", R"({"PartitionKey":"p","RowKey":"r"})"});
//   EXPECT_EQ(r.exit_code, 0) << r.err;
//
// Run() passes `--store <dir>/store` first; RunRaw() passes exactly the arguments given.

#ifndef PARTKV_TESTS_TOOLS_CLI_CLI_RUNNER_H_
#define PARTKV_TESTS_TOOLS_CLI_CLI_RUNNER_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/testing/temp_dir.h"

namespace partkv::testing {

struct RunResult {
  int exit_code = -1;  // the exit status, or 128 + signal when the child was killed
  std::string out;     // empty when RunOptions::stdout_path sent stdout to a file
  std::string err;
  // The child's peak resident set in KiB (wait4's ru_maxrss). Linux counts in it the forked copy
  // of the test process before exec, so it is the child's own peak only while the test process
  // itself is smaller.
  long max_rss_kib = 0;

  // stdout split into lines (without the newlines).
  std::vector<std::string> OutLines() const;
};

struct RunOptions {
  std::string input;               // stdin
  std::optional<std::string> cwd;  // default: the TempDir
  // Environment changes: a value sets the variable, nullopt removes it. PARTKV_STORE is always
  // removed unless set here.
  std::map<std::string, std::optional<std::string>> env;
  bool stderr_is_terminal = false;    // stderr on a pseudo-terminal (to see progress)
  std::optional<std::string> binary;  // another program to run; default BinaryPath()
  // stdout to this file (for output too large to hold), instead of RunResult::out.
  std::optional<std::string> stdout_path;
};

class CliRunner {
 public:
  explicit CliRunner(const TempDir& dir) : dir_(dir.path()), store_(dir.Sub("store")) {}

  // partkv --store <store> args...
  RunResult Run(const std::vector<std::string>& args, const std::string& input = "") const;
  // partkv args... (no --store added)
  RunResult RunRaw(const std::vector<std::string>& args, const RunOptions& options = {}) const;

  const std::string& store() const { return store_; }
  const std::string& dir() const { return dir_; }
  // Writes `content` to a file in the TempDir; returns its path.
  std::string WriteFile(const std::string& name, const std::string& content) const;

  static std::string BinaryPath();

 private:
  std::string dir_;
  std::string store_;
};

// One line of JSON without the members that change on every write ("odata.etag", "Timestamp"
// and its annotation), so that entities can be compared by content.
// The whole contents of the file at `path` ("" when it cannot be read).
std::string ReadFileText(const std::string& path);

std::string WithoutSystemMembers(const std::string& json_line);

}  // namespace partkv::testing

#endif  // PARTKV_TESTS_TOOLS_CLI_CLI_RUNNER_H_
