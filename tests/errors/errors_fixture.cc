#include "tests/errors/errors_fixture.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

extern char** environ;

namespace partkv::errors {

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

std::vector<std::string> RunHelper(std::vector<std::string> args, pid_t* pid_out, int* stdin_out,
                                   size_t wait_for_lines) {
  int out[2], in[2];
  if (::pipe(out) != 0 || ::pipe(in) != 0) return {"ERR pipe"};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawn_file_actions_addclose(&actions, in[1]);
  std::vector<char*> argv{const_cast<char*>(PARTKV_STORE_HELPER)};
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, PARTKV_STORE_HELPER, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  ::close(in[0]);
  if (rc != 0) return {"ERR spawn"};
  std::vector<std::string> lines;
  std::string buf;
  char chunk[1024];
  // Until EOF, or (for a holder) until the lines the caller waits for have come.
  while (wait_for_lines == 0 || lines.size() < wait_for_lines) {
    ssize_t n = ::read(out[0], chunk, sizeof chunk);
    if (n <= 0) break;
    buf.append(chunk, static_cast<size_t>(n));
    for (size_t nl; (nl = buf.find('\n')) != std::string::npos; buf.erase(0, nl + 1)) {
      lines.push_back(buf.substr(0, nl));
    }
  }
  ::close(out[0]);
  if (pid_out != nullptr) {
    *pid_out = pid;
    *stdin_out = in[1];
  } else {
    ::close(in[1]);
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
  return lines;
}

bool Has(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

std::string Find(const std::vector<std::string>& lines, const std::string& prefix) {
  for (const auto& l : lines) {
    if (l.rfind(prefix, 0) == 0) return l.substr(prefix.size());
  }
  return "";
}

Status StatusFromLine(const std::string& line) {
  // "<CodeName> <message>"
  std::string name = line.substr(0, line.find(' '));
  std::string msg = line.size() > name.size() ? line.substr(name.size() + 1) : "";
  if (name == "IOError") return Status::IOError(msg);
  if (name == "Busy") return Status::Busy(msg);
  if (name == "InvalidArgument") return Status::InvalidArgument(msg);
  if (name == "Corruption") return Status::Corruption(msg);
  return Status::NotFound("helper reported '" + line + "'");
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.id << " " << c.name; }

}  // namespace partkv::errors
