// A second process for the bad-input catalogue (errors_test.cc), for the inputs one process
// cannot feed itself:
//
//   partkv_store_helper hold DIR
//       Opens the store in DIR, prints "HELD" (or "ERR <status>"), and keeps it open until its
//       stdin reaches end of file: the store "already open in another process".
//   partkv_store_helper fill-disk tmpfs|fsize DIR
//       Runs a store out of space and proves nothing acknowledged was lost. `tmpfs` mounts an
//       8 MiB tmpfs on DIR in a private mount namespace (prints "SKIP <why>" when the sandbox does
//       not allow it); `fsize` lowers RLIMIT_FSIZE to 2 MiB with SIGXFSZ ignored, so writes past
//       it fail with EFBIG. A worker process then writes known entities, then 32 KiB entities
//       (incompressible) with sync until the store refuses ("FAILED <code> <message>"), checks
//       that it keeps refusing ("AGAIN"), still reads ("READ") and reports itself stopped
//       (Store::AwaitWritable with no time to wait: "STOPPED <status>"). On the tmpfs it then frees
//       space (deletes a 2 MiB ballast file, "FREED"), waits for the store to take writes again
//       (Store::AwaitWritable, at most 60 s: "WRITABLE <status>"; RocksDB resumes a store stopped
//       by a full disk by itself once enough space is free) and retries its write once
//       ("RESUMED <status>"). It closes the store ("CLOSED"). This process
//       reports the worker's death by a signal ("CRASHED <signal> <name>"), frees space, reopens
//       the store and checks every known and acknowledged entity ("VERIFY ok <n>" or "VERIFY
//       lost <what>"), and writes again ("WRITE <status>").

#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "partkv/partkv.h"

namespace partkv {
namespace {

constexpr int kKnown = 5;

void Say(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

// Incompressible bytes (splitmix64 of n), so that what is written takes its size on disk too.
std::string Noise(int n, size_t size) {
  std::string out(size, '\0');
  uint64_t x = static_cast<uint64_t>(n) * 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < size; i += 8) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    for (size_t b = 0; b < 8 && i + b < size; ++b) out[i + b] = static_cast<char>(z >> (8 * b));
  }
  return out;
}

Entity Row(const std::string& rk, int n, size_t blob) {
  Entity e("disk", rk);
  e.Set("n", Value::Int32(n)).Set("blob", Value::Binary(Noise(n, blob)));
  return e;
}

int Hold(const std::string& dir) {
  auto store = Store::Open(dir);
  if (!store.ok()) {
    Say("ERR " + store.status().ToString());
    return 1;
  }
  Say("HELD");
  char c;
  while (::read(STDIN_FILENO, &c, 1) > 0) {
  }
  return 0;
}

// Mounts a small tmpfs on `dir` in a mount namespace of this process only; "" or why not.
std::string MountTmpfs(const std::string& dir) {
  if (::unshare(CLONE_NEWNS) != 0) {
    // Not root: a user namespace makes us root of our own mount namespace, where allowed.
    uid_t uid = ::geteuid();
    gid_t gid = ::getegid();
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
      return std::string("cannot create a mount namespace: ") + std::strerror(errno);
    }
    std::ofstream("/proc/self/setgroups") << "deny";
    std::ofstream("/proc/self/uid_map") << "0 " << uid << " 1";
    std::ofstream("/proc/self/gid_map") << "0 " << gid << " 1";
  }
  if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return std::string("cannot make mounts private: ") + std::strerror(errno);
  }
  if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=8m") != 0) {
    return std::string("cannot mount a tmpfs: ") + std::strerror(errno);
  }
  return "";
}

Entity Acknowledged(int i) {
  return i < kKnown ? Row("known-" + std::to_string(i), i, 100)
                    : Row("fill-" + std::to_string(i - kKnown), i, 32 * 1024);
}

// The worker: fills the store until it refuses a write. Reports the number of acknowledged rows
// (Acknowledged(0..n-1)) on `acks` after each one, so the parent knows them even if it dies.
// `free_space` (may be empty) gives space back once the store refused a write.
[[noreturn]] void FillWorker(const std::string& path, const StoreOptions& options,
                             const std::function<void()>& arm,
                             const std::function<void()>& free_space, int acks) {
  auto ack = [acks](int n) {
    if (::write(acks, &n, sizeof n) != sizeof n) std::_Exit(5);
  };
  auto store = Store::Open(path, options);
  if (!store.ok()) Say("ERR open: " + store.status().ToString()), std::_Exit(1);
  if (Status s = store->CreateTable("Items"); !s.ok()) Say("ERR " + s.ToString()), std::_Exit(1);
  std::optional<Table> table = *store->OpenTable("Items");
  int n = 0;
  for (; n < kKnown; ++n) {
    if (!table->Insert(Acknowledged(n), {.sync = true}).ok()) Say("ERR known write"), std::_Exit(1);
    ack(n + 1);
  }
  Say("KNOWN " + std::to_string(kKnown));
  arm();
  Status failure;
  for (; n < kKnown + 4096 && failure.ok(); ++n) {
    auto w = table->InsertOrReplace(Acknowledged(n), {.sync = true});
    if (w.ok()) {
      ack(n + 1);
    } else {
      failure = w.status();
    }
  }
  if (failure.ok()) Say("ERR the store never ran out of space"), std::_Exit(1);
  Say("FAILED " + std::string(Status::CodeName(failure.code())) + " " +
      std::string(failure.message()));
  // Out of space, the store refuses writes and still serves reads.
  Say("AGAIN " + table->InsertOrReplace(Row("after", 0, 10), {.sync = true}).status().ToString());
  Say("READ " + table->Get("disk", "known-0").status().ToString());
  // And says so without waiting.
  Say("STOPPED " + store->AwaitWritable(std::chrono::milliseconds(0)).ToString());
  if (free_space) {
    free_space();
    Say("FREED");
    // RocksDB resumes the store by itself once enough space is free; the store says when.
    Status resumed = store->AwaitWritable(std::chrono::seconds(60));
    Say("WRITABLE " + resumed.ToString());
    // The write that failed, retried: a write that returns an error may still have been
    // applied, so the model counts it only once it is acknowledged.
    if (resumed.ok())
      resumed = table->InsertOrReplace(Acknowledged(n - 1), {.sync = true}).status();
    if (resumed.ok()) ack(n);
    Say("RESUMED " + resumed.ToString());
  }
  store = Status::Busy("closing");  // closes the store (the table handle goes next)
  table.reset();
  Say("CLOSED");
  std::_Exit(0);
}

int FillDisk(const std::string& how, const std::string& dir) {
  std::filesystem::create_directories(dir);
  std::string ballast = dir + "/ballast";
  std::function<void()> arm = [] {}, disarm = [] {}, free_space;
  StoreOptions options;
  if (how == "tmpfs") {
    std::string why = MountTmpfs(dir);
    if (!why.empty()) {
      Say("SKIP " + why);
      return 0;
    }
    // Room to reopen in once the ballast is gone: recovery writes a new MANIFEST and WAL.
    std::ofstream(ballast) << std::string(2u << 20, 'b');
    disarm = [ballast] { std::filesystem::remove(ballast); };
    free_space = disarm;
    // RocksDB resumes a store stopped by a full disk once a memtable's worth of space is free
    // (its SstFileManager reserves write_buffer_size): a small budget keeps that below the
    // ballast. (Memtables are budget / 8, at least 1 MiB.)
    options.memory_budget_bytes = 8u << 20;
  } else if (how == "fsize") {
    arm = [] {  // in the worker only
      std::signal(SIGXFSZ, SIG_IGN);
      rlimit limit{};
      ::getrlimit(RLIMIT_FSIZE, &limit);
      limit.rlim_cur = 2u << 20;
      ::setrlimit(RLIMIT_FSIZE, &limit);
    };
  } else {
    Say("ERR unknown mode " + how);
    return 2;
  }

  // The worker runs in a child process, so that this process (in the same mount namespace)
  // can check the store even if the worker dies.
  std::string path = dir + "/store";
  int fds[2];
  if (::pipe(fds) != 0) return Say("ERR pipe"), 1;
  pid_t pid = ::fork();
  if (pid < 0) return Say("ERR fork"), 1;
  if (pid == 0) {
    ::close(fds[0]);
    FillWorker(path, options, arm, free_space, fds[1]);
  }
  ::close(fds[1]);
  int acked = 0, n = 0;
  while (::read(fds[0], &n, sizeof n) == sizeof n) acked = n;
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    Say("CRASHED " + std::to_string(WTERMSIG(status)) + " " + strsignal(WTERMSIG(status)));
  }
  disarm();
  auto store = Store::Open(path, options);
  if (!store.ok()) return Say("VERIFY lost: reopen failed: " + store.status().ToString()), 0;
  Table table = *store->OpenTable("Items");
  for (int i = 0; i < acked; ++i) {
    Entity want = Acknowledged(i);
    auto got = table.Get(want.partition_key(), want.row_key());
    if (!got.ok() || !got->SameContent(want)) {
      Say("VERIFY lost " + want.row_key() + ": " + got.status().ToString());
      return 0;
    }
  }
  Say("VERIFY ok " + std::to_string(acked));
  Say("WRITE " + table.InsertOrReplace(Row("after", 1, 10)).status().ToString());
  return 0;
}

}  // namespace
}  // namespace partkv

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "hold") return partkv::Hold(args[1]);
  if (args.size() == 3 && args[0] == "fill-disk") return partkv::FillDisk(args[1], args[2]);
  std::fprintf(stderr, "usage: partkv_store_helper hold DIR | fill-disk tmpfs|fsize DIR\n");
  return 2;
}
