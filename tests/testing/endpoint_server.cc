#include "tests/testing/endpoint_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>
#include <utility>

namespace partkv::testing {
namespace {

using Clock = std::chrono::steady_clock;

// Output kept per stream: enough for any start-up message, bounded for a server that logs on.
constexpr size_t kOutputKept = 64 << 10;
// Azurite's port is picked before Azurite binds it (see Azurite::Start); another process may take
// it in between, so a start that fails with EADDRINUSE is tried again on a new port.
constexpr int kPortAttempts = 5;

Status ErrnoStatus(const std::string& what) {
  return Status::IOError(what + ": " + std::strerror(errno));
}

std::string DescribeWaitStatus(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("was killed by ") + strsignal(WTERMSIG(status));
  return "ended";
}

// The absolute path of program `name` found on PATH, or nullopt.
std::optional<std::string> FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return std::filesystem::absolute(candidate).string();
  }
  return std::nullopt;
}

// A port on 127.0.0.1 that was free a moment ago.
Result<int> PickFreePort() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoStatus("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    Status status = ErrnoStatus("binding a socket to 127.0.0.1:0");
    close(fd);
    return status;
  }
  close(fd);
  return static_cast<int>(ntohs(addr.sin_port));
}

// Waits on a pidfd until process `pid` (our child, not yet reaped) has ended or `deadline` has
// passed; true when it ended. A pidfd that cannot be had (a kernel before 5.3, a sandbox that
// refuses pidfd_open) counts as not ended: the caller then ends the process with SIGKILL and
// reaps it, which waits for the end itself.
bool AwaitEnd(pid_t pid, std::chrono::steady_clock::time_point deadline) {
  // By syscall: Debian 12's <sys/pidfd.h> declares pidfd_open without C linkage for C++.
  const int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return false;
  bool ended = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    const int n = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count() + 1, INT32_MAX)));
    if (n > 0) {
      ended = true;
      break;
    }
    if (n < 0 && errno != EINTR) break;
  }
  close(fd);
  return ended;
}

}  // namespace

// A child process in its own process group, whose stdout and stderr a thread of ours reads into
// bounded buffers, so that a talkative server never blocks on a full pipe and start-up lines can
// be waited for on a condition variable.
class EndpointServer::Process {
 public:
  // Runs argv[0], an absolute path, with `argv` in directory `cwd`, stdin from /dev/null.
  // `name` names the program in messages.
  static Result<std::unique_ptr<Process>> Spawn(std::string name,
                                                const std::vector<std::string>& argv,
                                                const std::string& cwd);
  ~Process() { Stop(); }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  // The submatches of the first match of `pattern` (the server's listening line) in stdout,
  // once there is one; IOError when the process ends its output (it exited) or `deadline`
  // passes first, with its stderr.
  Result<std::vector<std::string>> WaitForListening(const std::regex& pattern,
                                                    Clock::time_point deadline);
  // Waits for the process to exit by itself and reaps it; IOError at `deadline`, or when it did
  // not exit with status 0, with its stderr.
  Status WaitForSuccess(Clock::time_point deadline);
  // SIGTERM to the group, SIGKILL after kStopDeadline; reaps the process, joins the reader.
  void Stop();

  pid_t pid() const { return pid_; }
  std::string Stdout() const;
  std::string Stderr() const;

 private:
  // Takes the read ends of the child's stdout and stderr, and a pipe whose write end closing
  // stops the reader.
  Process(std::string name, pid_t pid, int out_fd, int err_fd, int wake_read, int wake_write);
  void ReadOutput(int out_fd, int err_fd, int wake_fd);
  // True once the process has exited (without reaping it, so that its group id stays reserved).
  bool WaitForExit(Clock::time_point deadline) const;
  void Reap();
  // Waits (until `deadline`) for the output to end, then describes how the process ended.
  std::string DescribeEnd(Clock::time_point deadline);

  const std::string name_;
  const pid_t pid_;
  std::optional<int> wait_status_;  // once reaped
  int wake_fd_;                     // closed to stop the reader
  std::thread reader_;
  mutable std::mutex mu_;
  std::condition_variable output_cv_;  // signalled on every read and at the end of the output
  std::string out_;                    // the first kOutputKept bytes of stdout
  std::string err_;                    // the last kOutputKept bytes of stderr
  bool output_ended_ = false;
};

Result<std::unique_ptr<EndpointServer::Process>> EndpointServer::Process::Spawn(
    std::string name, const std::vector<std::string>& argv, const std::string& cwd) {
  if (access(argv[0].c_str(), X_OK) != 0) return ErrnoStatus("cannot run " + argv[0]);
  // Everything the child uses is made before fork: a multi-threaded process's child may only make
  // async-signal-safe calls. fork rather than posix_spawn, for PR_SET_PDEATHSIG.
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const std::string exec_failed = name + ": cannot execute " + argv[0] + "\n";
  int out[2], err[2], wake[2];
  if (pipe2(out, O_CLOEXEC) != 0) return ErrnoStatus("pipe");
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]), close(out[1]);
    return ErrnoStatus("pipe");
  }
  if (pipe2(wake, O_CLOEXEC) != 0) {
    close(out[0]), close(out[1]), close(err[0]), close(err[1]);
    return ErrnoStatus("pipe");
  }
  const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before the line above
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig : {SIGTERM, SIGINT, SIGPIPE}) sigaction(sig, &dfl, nullptr);
    if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0 ||
        chdir(cwd.c_str()) != 0) {
      _exit(126);
    }
    close_range(3, ~0U, 0);  // descriptors the test process left inheritable
    execv(args[0], args.data());
    [[maybe_unused]] ssize_t n = write(2, exec_failed.data(), exec_failed.size());
    _exit(127);
  }
  const int fork_errno = errno;
  close(out[1]), close(err[1]);
  if (devnull >= 0) close(devnull);
  if (pid < 0) {
    close(out[0]), close(err[0]), close(wake[0]), close(wake[1]);
    errno = fork_errno;
    return ErrnoStatus("fork");
  }
  // The child does the same; doing it here too means the group exists before any kill(-pid).
  setpgid(pid, pid);
  return std::unique_ptr<Process>(
      new Process(std::move(name), pid, out[0], err[0], wake[0], wake[1]));
}

EndpointServer::Process::Process(std::string name, pid_t pid, int out_fd, int err_fd, int wake_read,
                                 int wake_write)
    : name_(std::move(name)), pid_(pid), wake_fd_(wake_write) {
  reader_ = std::thread(&Process::ReadOutput, this, out_fd, err_fd, wake_read);
}

void EndpointServer::Process::ReadOutput(int out_fd, int err_fd, int wake_fd) {
  pollfd fds[3] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
  char buf[4096];
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    if (poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[2].revents != 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      std::lock_guard lock(mu_);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
      } else if (i == 0) {
        out_.append(buf, std::min(static_cast<size_t>(n), kOutputKept - out_.size()));
      } else {
        err_.append(buf, n);
        if (err_.size() > kOutputKept) err_.erase(0, err_.size() - kOutputKept);
      }
    }
    output_cv_.notify_all();
  }
  for (const pollfd& p : fds) {
    if (p.fd >= 0) close(p.fd);
  }
  std::lock_guard lock(mu_);
  output_ended_ = true;
  output_cv_.notify_all();
}

Result<std::vector<std::string>> EndpointServer::Process::WaitForListening(
    const std::regex& pattern, Clock::time_point deadline) {
  std::unique_lock lock(mu_);
  std::vector<std::string> groups;
  output_cv_.wait_until(lock, deadline, [&] {
    std::smatch match;
    if (!std::regex_search(out_, match, pattern)) return output_ended_;
    for (const auto& group : match) groups.push_back(group.str());
    return true;
  });
  if (!groups.empty()) return groups;
  const bool ended = output_ended_;
  lock.unlock();
  if (!ended) {
    return Status::IOError(name_ + " printed no listening line within " +
                           std::to_string(kStartDeadline.count()) + " s; stdout: " + Stdout() +
                           "; stderr: " + Stderr());
  }
  return Status::IOError(name_ + " " + DescribeEnd(Clock::now() + kStopDeadline) +
                         " before listening; stderr: " + Stderr());
}

Status EndpointServer::Process::WaitForSuccess(Clock::time_point deadline) {
  if (!WaitForExit(deadline)) {
    return Status::IOError(name_ + " did not finish in time; stderr: " + Stderr());
  }
  Reap();
  std::string end = DescribeEnd(deadline);
  if (WIFEXITED(*wait_status_) && WEXITSTATUS(*wait_status_) == 0) return Status::OK();
  return Status::IOError(name_ + " " + end + "; stderr: " + Stderr());
}

bool EndpointServer::Process::WaitForExit(Clock::time_point deadline) const {
  return wait_status_.has_value() || AwaitEnd(pid_, deadline);
}

void EndpointServer::Process::Reap() {
  if (wait_status_) return;
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  wait_status_ = status;
}

std::string EndpointServer::Process::DescribeEnd(Clock::time_point deadline) {
  {
    std::unique_lock lock(mu_);
    output_cv_.wait_until(lock, deadline, [&] { return output_ended_; });
  }
  if (!WaitForExit(deadline)) return "closed its output";
  Reap();
  return DescribeWaitStatus(*wait_status_);
}

void EndpointServer::Process::Stop() {
  if (!wait_status_) {
    kill(-pid_, SIGTERM);
    WaitForExit(Clock::now() + kStopDeadline);
    // Whether the leader finished or is stuck, nothing of its group may outlive it. Until it is
    // reaped its pid, and so the group's id, cannot be reused.
    kill(-pid_, SIGKILL);
    Reap();
  }
  if (wake_fd_ >= 0) {
    close(wake_fd_);
    wake_fd_ = -1;
  }
  if (reader_.joinable()) reader_.join();
}

std::string EndpointServer::Process::Stdout() const {
  std::lock_guard lock(mu_);
  return out_.substr(0, out_.find_last_not_of(" \r\n") + 1);
}

std::string EndpointServer::Process::Stderr() const {
  std::lock_guard lock(mu_);
  return err_.substr(0, err_.find_last_not_of(" \r\n") + 1);
}

EndpointServer::EndpointServer(std::unique_ptr<TempDir> dir, std::unique_ptr<Process> process,
                               std::string scheme, int port, std::string ca_file)
    : dir_(std::move(dir)),
      process_(std::move(process)),
      port_(port),
      ca_file_(std::move(ca_file)),
      endpoint_url_(scheme + "://127.0.0.1:" + std::to_string(port) + "/" +
                    std::string(kDevAccountName)),
      connection_string_(
          "DefaultEndpointsProtocol=" + scheme + ";AccountName=" + std::string(kDevAccountName) +
          ";AccountKey=" + std::string(kDevAccountKey) + ";TableEndpoint=" + endpoint_url_ + ";") {}

EndpointServer::~EndpointServer() = default;

pid_t EndpointServer::pid() const { return process_->pid(); }

std::string EndpointServer::stderr_output() const { return process_->Stderr(); }

Azurite::Azurite(std::unique_ptr<TempDir> dir, std::unique_ptr<Process> process, bool https,
                 int port, std::string ca_file)
    : EndpointServer(std::move(dir), std::move(process), https ? "https" : "http", port,
                     std::move(ca_file)) {}

PartkvServe::PartkvServe(std::unique_ptr<TempDir> dir, std::unique_ptr<Process> process, int port,
                         std::string store_dir)
    : EndpointServer(std::move(dir), std::move(process), "http", port, ""),
      store_dir_(std::move(store_dir)) {}

Result<std::unique_ptr<PartkvServe>> PartkvServe::Start(const std::string& partkv_cli,
                                                        const PartkvServeOptions& options) {
  const auto deadline = Clock::now() + kStartDeadline;
  // A store given by the caller is left where it is, and nothing else is made: the server's
  // working directory is then "/".
  auto dir = options.store_dir.empty() ? std::make_unique<TempDir>() : nullptr;
  std::string store = dir ? dir->Sub("store") : options.store_dir;
  std::vector<std::string> argv = {partkv_cli, "serve", "--store", store, "--port", "0"};
  argv.insert(argv.end(), options.extra_args.begin(), options.extra_args.end());
  auto process = Process::Spawn("partkv serve", argv, dir ? dir->path() : "/");
  if (!process.ok()) return process.status();
  // tools/serve/server.cc prints it once the socket listens.
  static const std::regex kListening(R"(listening on http://127\.0\.0\.1:(\d+)/)");
  auto listening = (*process)->WaitForListening(kListening, deadline);
  if (!listening.ok()) return listening.status();
  return std::unique_ptr<PartkvServe>(new PartkvServe(
      std::move(dir), std::move(*process), std::stoi((*listening)[1]), std::move(store)));
}

Result<std::unique_ptr<Azurite>> Azurite::Start(const std::string& azurite_dir,
                                                const AzuriteOptions& options) {
  const auto deadline = Clock::now() + kStartDeadline;
  const std::string main_js = azurite_dir + "/node_modules/azurite/dist/src/table/main.js";
  if (access(main_js.c_str(), R_OK) != 0) {
    return Status::IOError("Azurite is not installed in " + azurite_dir +
                           " (tests/engine/remote/install_azurite.sh installs it)");
  }
  std::optional<std::string> node = FindOnPath("node");
  if (!node) return Status::IOError("node is not installed (tools/deps.sh installs it)");
  auto dir = std::make_unique<TempDir>();
  std::string ca_file;
  std::vector<std::string> tls_args;
  if (options.https) {
    std::optional<std::string> openssl = FindOnPath("openssl");
    if (!openssl) return Status::IOError("openssl is not installed (tools/deps.sh installs it)");
    // Self-signed, so the certificate is its own CA file. P-256 rather than RSA: made in
    // milliseconds.
    ca_file = dir->Sub("cert.pem");
    const std::string key = dir->Sub("key.pem");
    auto openssl_run = Process::Spawn(
        "openssl",
        {*openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", key, "-out", ca_file, "-days", "7", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"},
        dir->path());
    if (!openssl_run.ok()) return openssl_run.status();
    PARTKV_RETURN_IF_ERROR((*openssl_run)->WaitForSuccess(deadline));
    tls_args = {"--cert", ca_file, "--key", key};
  }
  // Azurite binds --tablePort 0 to a free port, but its "successfully started" line then says
  // ":0", and nothing else tells the port. So the port is picked here, by binding a socket to
  // port 0 and closing it, and a start that loses the port to another process is retried.
  static const std::regex kStarted(R"(successfully started on 127\.0\.0\.1:(\d+)\r?\n)");
  Status last;
  for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
    auto port = PickFreePort();
    if (!port.ok()) return port.status();
    std::vector<std::string> argv = {*node,
                                     main_js,
                                     "--tableHost",
                                     "127.0.0.1",
                                     "--tablePort",
                                     std::to_string(*port),
                                     "--inMemoryPersistence",
                                     "--skipApiVersionCheck",
                                     "--disableTelemetry",
                                     "--silent"};
    if (options.loose) argv.push_back("--loose");
    argv.insert(argv.end(), tls_args.begin(), tls_args.end());
    auto process = Process::Spawn("Azurite", argv, dir->path());
    if (!process.ok()) return process.status();
    auto started = (*process)->WaitForListening(kStarted, deadline);
    if (started.ok()) {
      return std::unique_ptr<Azurite>(new Azurite(std::move(dir), std::move(*process),
                                                  options.https, *port, std::move(ca_file)));
    }
    last = started.status();
    if ((*process)->Stderr().find("EADDRINUSE") == std::string::npos) break;
  }
  return last;
}

std::string_view EndpointKindName(EndpointKind kind) {
  switch (kind) {
    case EndpointKind::kPartkvServe:
      return "PartkvServe";
    case EndpointKind::kAzurite:
      return "Azurite";
    case EndpointKind::kAzuriteHttps:
      return "AzuriteHttps";
  }
  return "?";
}

Result<std::unique_ptr<EndpointServer>> StartEndpoint(EndpointKind kind,
                                                      const ServerPrograms& programs) {
  auto widen = [](auto started) -> Result<std::unique_ptr<EndpointServer>> {
    if (!started.ok()) return started.status();
    return std::unique_ptr<EndpointServer>(std::move(*started));
  };
  switch (kind) {
    case EndpointKind::kPartkvServe:
      return widen(PartkvServe::Start(programs.partkv_cli));
    case EndpointKind::kAzurite:
      return widen(Azurite::Start(programs.azurite_dir));
    case EndpointKind::kAzuriteHttps:
      return widen(Azurite::Start(programs.azurite_dir, {.https = true}));
  }
  return Status::InvalidArgument("unknown endpoint kind");
}

namespace {

// Holds the shared servers; gtest calls TearDown after the last test, which stops them.
class SharedEndpoints final : public ::testing::Environment {
 public:
  Result<EndpointServer*> Get(EndpointKind kind, const ServerPrograms& programs) {
    std::lock_guard lock(mu_);
    auto it = servers_.find(kind);
    if (it == servers_.end()) {
      // The server dies with the thread that forks it (PR_SET_PDEATHSIG); only the main thread
      // lives as long as the test process.
      if (gettid() != getpid()) {
        return Status::InvalidArgument(
            "SharedEndpoint starts a server only on the main thread, which outlives it");
      }
      it = servers_.emplace(kind, StartEndpoint(kind, programs)).first;
    }
    if (!it->second.ok()) return it->second.status();
    return it->second->get();
  }

  void TearDown() override {
    std::lock_guard lock(mu_);
    servers_.clear();
  }

 private:
  std::mutex mu_;
  std::map<EndpointKind, Result<std::unique_ptr<EndpointServer>>> servers_;
};

}  // namespace

Result<EndpointServer*> SharedEndpoint(EndpointKind kind, const ServerPrograms& programs) {
  // gtest owns the Environment and tears it down even when it is added while tests run.
  static auto* const shared =
      static_cast<SharedEndpoints*>(::testing::AddGlobalTestEnvironment(new SharedEndpoints));
  return shared->Get(kind, programs);
}

}  // namespace partkv::testing
