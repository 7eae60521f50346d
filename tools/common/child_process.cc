#include "tools/common/child_process.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "tools/common/die.h"

namespace partkv::tools {

bool ChildRun::exited_ok() const { return WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0; }

ChildRun RunChild(const std::string& path, const std::vector<std::string>& argv,
                  ChildOutput output) {
  std::vector<std::string> args = argv;
  std::vector<char*> c_argv;
  for (auto& a : args) c_argv.push_back(a.data());
  c_argv.push_back(nullptr);
  int fds[2] = {-1, -1};
  if (output == ChildOutput::kCapture && pipe(fds) != 0) {
    Die(std::string("pipe: ") + std::strerror(errno));
  }
  std::fflush(nullptr);  // nothing buffered is written twice
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) Die(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    if (output == ChildOutput::kCapture) {
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      close(fds[1]);
    } else if (output == ChildOutput::kDiscard) {
      int null = open("/dev/null", O_WRONLY);
      if (null >= 0) dup2(null, STDOUT_FILENO);
    }
    execv(path.c_str(), c_argv.data());
    std::fprintf(stderr, "exec %s: %s\n", path.c_str(), std::strerror(errno));
    _exit(127);
  }
  ChildRun run;
  if (output == ChildOutput::kCapture) {
    close(fds[1]);
    char buf[4096];
    for (ssize_t got; (got = read(fds[0], buf, sizeof buf)) != 0;) {
      if (got < 0) {
        if (errno == EINTR) continue;
        break;
      }
      run.output.append(buf, static_cast<size_t>(got));
    }
    close(fds[0]);
  }
  struct rusage usage {};
  while (wait4(pid, &run.wait_status, 0, &usage) < 0) {
    if (errno != EINTR) Die(std::string("wait4: ") + std::strerror(errno));
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                    static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  run.peak_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024;  // ru_maxrss is in KiB
  return run;
}

}  // namespace partkv::tools
