#include "tests/tools/cli/cli_runner.h"

#include <fcntl.h>
#include <pty.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

namespace partkv::testing {
namespace {

// Drains a pty master until the child side closes (EIO on Linux).
std::string DrainPty(int master) {
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = read(master, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> RunResult::OutLines() const {
  std::vector<std::string> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::string CliRunner::BinaryPath() { return PARTKV_CLI_PATH; }

std::string CliRunner::WriteFile(const std::string& name, const std::string& content) const {
  std::string path = dir_ + "/" + name;
  std::ofstream out(path, std::ios::binary);
  out << content;
  return path;
}

RunResult CliRunner::Run(const std::vector<std::string>& args, const std::string& input) const {
  std::vector<std::string> all = {"--store", store_};
  all.insert(all.end(), args.begin(), args.end());
  RunOptions options;
  options.input = input;
  return RunRaw(all, options);
}

RunResult CliRunner::RunRaw(const std::vector<std::string>& args, const RunOptions& options) const {
  static std::atomic<int> counter{0};
  std::string base = dir_ + "/run" + std::to_string(counter++);
  std::string in_path = base + ".in", out_path = options.stdout_path.value_or(base + ".out"),
              err_path = base + ".err";
  {
    std::ofstream in(in_path, std::ios::binary);
    in << options.input;
  }
  std::vector<std::string> all = {options.binary.value_or(BinaryPath())};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);

  int master = -1, slave = -1;
  if (options.stderr_is_terminal && openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
    return RunResult{-1, "", "openpty failed"};
  }
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    if (chdir(options.cwd.value_or(dir_).c_str()) != 0) _exit(126);
    unsetenv("PARTKV_STORE");
    for (const auto& [name, value] : options.env) {
      if (value) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
    int in = open(in_path.c_str(), O_RDONLY);
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = slave >= 0 ? slave : open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0) _exit(126);
    dup2(in, STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    if (master >= 0) close(master);
    execv(argv[0], argv.data());
    _exit(127);
  }
  RunResult result;
  if (slave >= 0) {
    close(slave);
    result.err = DrainPty(master);
    close(master);
  }
  int status = 0;
  struct rusage usage {};
  while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.max_rss_kib = usage.ru_maxrss;
  if (!options.stdout_path) result.out = ReadFileText(out_path);
  if (!options.stderr_is_terminal) result.err = ReadFileText(err_path);
  return result;
}

std::string ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string WithoutSystemMembers(const std::string& json_line) {
  static const std::regex kEtag(R"re("odata\.etag":"(\\.|[^"\\])*",?)re");
  static const std::regex kTimestamp(
      R"re("Timestamp@odata\.type":"Edm\.DateTime","Timestamp":"[^"]*",?)re");
  std::string s = std::regex_replace(json_line, kEtag, "");
  s = std::regex_replace(s, kTimestamp, "");
  // A member removed before "}" leaves a trailing comma.
  return std::regex_replace(s, std::regex(",}"), "}");
}

}  // namespace partkv::testing
