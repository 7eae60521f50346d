#include "tests/tools/copy/copy_test_support.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "partkv/partkv.h"
#include "tests/testing/endpoint_server.h"

namespace partkv::testing {
namespace {

// A run that takes this long is stuck: it is killed and reported as such.
constexpr std::chrono::seconds kRunDeadline{180};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

KilledRun RunKillable(const std::vector<std::string>& args, const std::string& cwd,
                      const std::string& checkpoint, const KillPlan& plan) {
  static int counter = 0;
  const std::string base = cwd + "/killable" + std::to_string(counter++);
  const std::string out_path = base + ".out", err_path = base + ".err";
  const std::filesystem::path checkpoint_path(checkpoint);
  const std::string watched_dir = checkpoint_path.parent_path().string();
  const std::string watched_name = checkpoint_path.filename().string();

  KilledRun run;
  // The watch is in place before the child starts, so no replacement goes unseen.
  const int watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  const int checkpoint_watch =
      watch < 0 ? -1 : inotify_add_watch(watch, watched_dir.c_str(), IN_MOVED_TO);
  const int store_watch = watch < 0 || plan.store_dir.empty()
                              ? -1
                              : inotify_add_watch(watch, plan.store_dir.c_str(), IN_MODIFY);
  if (checkpoint_watch < 0 || (!plan.store_dir.empty() && store_watch < 0)) {
    run.err = std::string("inotify: ") + std::strerror(errno);
    if (watch >= 0) close(watch);
    return run;
  }

  std::vector<std::string> all = {PARTKV_CLI_PATH};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);

  std::fflush(nullptr);
  const auto started = std::chrono::steady_clock::now();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(125);
    if (chdir(cwd.c_str()) != 0) _exit(126);
    unsetenv("PARTKV_STORE");
    const int in = open("/dev/null", O_RDONLY);
    const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0) _exit(126);
    dup2(in, STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  if (pid < 0) {
    run.err = std::string("fork: ") + std::strerror(errno);
    close(watch);
    return run;
  }
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  bool exited = false, sent_kill = false;
  const auto kill_at = plan.delay ? std::optional(started + *plan.delay) : std::nullopt;
  const auto give_up_at = started + kRunDeadline;
  while (!exited) {
    const auto now = std::chrono::steady_clock::now();
    if (plan.condition && plan.condition()) {
      kill(pid, SIGKILL);
      sent_kill = true;
      break;
    }
    auto until = kill_at ? std::min(*kill_at, give_up_at) : give_up_at;
    if (plan.condition) until = std::min(until, now + plan.poll);
    if (now >= give_up_at || (kill_at && now >= *kill_at)) {
      if (now >= give_up_at) run.err = "the run did not end within the deadline; ";
      kill(pid, SIGKILL);
      sent_kill = true;
      break;
    }
    const auto wait = std::chrono::duration_cast<std::chrono::nanoseconds>(until - now);
    const timespec timeout{static_cast<time_t>(wait.count() / 1'000'000'000),
                           static_cast<long>(wait.count() % 1'000'000'000)};
    pollfd fds[2] = {{watch, POLLIN, 0}, {pidfd, POLLIN, 0}};
    const int ready = ppoll(fds, pidfd >= 0 ? 2 : 1, &timeout, nullptr);
    if (ready < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) {
      alignas(inotify_event) char buffer[4096];
      ssize_t n;
      while ((n = read(watch, buffer, sizeof buffer)) > 0) {
        for (char* p = buffer; p < buffer + n;) {
          const auto* event = reinterpret_cast<const inotify_event*>(p);
          if (event->len > 0) {
            const std::string_view name(event->name);
            if (event->wd == checkpoint_watch && name == watched_name) ++run.checkpoint_events;
            if (event->wd == store_watch && name.size() > 4 &&
                name.substr(name.size() - 4) == ".log") {
              ++run.store_writes;
            }
          }
          p += sizeof(inotify_event) + event->len;
        }
      }
      if ((plan.events > 0 && run.checkpoint_events >= plan.events) ||
          (plan.store_writes > 0 && run.store_writes >= plan.store_writes)) {
        kill(pid, SIGKILL);
        sent_kill = true;
        break;
      }
    }
    if (pidfd >= 0 && (fds[1].revents & POLLIN)) exited = true;
    if (pidfd < 0) {  // no pidfd: poll for the child's end on each wakeup
      int status;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        run.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::steady_clock::now() - started);
        close(watch);
        run.out = ReadAll(out_path);
        run.err += ReadAll(err_path);
        return run;
      }
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - started);
  if (pidfd >= 0) close(pidfd);
  close(watch);
  // A child that ended by itself just before the signal counts as not killed.
  run.killed = sent_kill && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = ReadAll(out_path);
  run.err += ReadAll(err_path);
  return run;
}

Result<nlohmann::json> CopyJson(const std::string& out) {
  try {
    const nlohmann::json doc = nlohmann::json::parse(out);
    if (!doc.is_object() || !doc.contains("tables") || !doc["tables"].is_array() ||
        doc["tables"].size() != 1) {
      return Status::InvalidArgument("not a report of one table: " + out);
    }
    return doc["tables"][0];
  } catch (const nlohmann::json::exception& e) {
    return Status::InvalidArgument(std::string("not JSON (") + e.what() + "): " + out);
  }
}

Result<uint64_t> CountRows(const std::string& location, const std::string& table_name) {
  if (!Store::IsRemoteLocation(location)) {
    std::error_code ec;
    if (!std::filesystem::exists(location, ec)) return uint64_t{0};
  }
  StoreOptions options;
  options.create_if_missing = false;
  auto store = Store::Open(location, options);
  // No store yet, or one whose creation was cut short (by a kill): a copy creates it again.
  if (store.status().IsNotFound()) return uint64_t{0};
  PARTKV_RETURN_IF_ERROR(store.status());
  auto table = store->OpenTable(table_name);
  if (table.status().IsNotFound()) return uint64_t{0};
  PARTKV_RETURN_IF_ERROR(table.status());
  Query query;
  query.select = {"PartitionKey"};
  query.page_size = Query::kMaxPageSize;
  Page page;
  uint64_t rows = 0;
  do {
    PARTKV_RETURN_IF_ERROR(table->QueryEntities(query, &page));
    rows += page.entities.size();
    query.continuation = page.continuation;
  } while (page.has_more());
  return rows;
}

std::vector<std::string> ExportCanonical(const std::string& export_output) {
  std::vector<std::string> out;
  std::istringstream in(export_output);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      out.push_back(std::string("unparsable line (") + e.what() + "): " + line);
      continue;
    }
    for (const char* member : {"odata.etag", "Timestamp", "Timestamp@odata.type"}) j.erase(member);
    out.push_back(j.dump());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string LoopbackConnectionString(int port) {
  return "DefaultEndpointsProtocol=http;AccountName=" + std::string(kDevAccountName) +
         ";AccountKey=" + std::string(kDevAccountKey) +
         ";TableEndpoint=http://127.0.0.1:" + std::to_string(port) + "/" +
         std::string(kDevAccountName) + ";";
}

}  // namespace partkv::testing
