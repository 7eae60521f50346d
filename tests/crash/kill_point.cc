#include "tests/crash/kill_point.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>

namespace partkv::crash {
namespace {

std::atomic<bool> armed{false};
std::atomic<uint64_t> kill_at{0};
std::atomic<uint64_t> count{0};

// Called before each change; kills the process at the chosen one.
void Change() {
  if (!armed.load(std::memory_order_acquire)) return;
  uint64_t n = count.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (n == kill_at.load(std::memory_order_acquire)) ::kill(::getpid(), SIGKILL);
}

// libc's definition of `name` (the next one after this executable's).
template <typename F>
F Next(F*, const char* name) {
  static_assert(sizeof(void*) == sizeof(F));
  void* sym = ::dlsym(RTLD_NEXT, name);
  if (sym == nullptr) ::abort();
  F f;
  __builtin_memcpy(&f, &sym, sizeof f);
  return f;
}

#define PARTKV_NEXT(name) static const auto real = Next<decltype(&::name)>(nullptr, #name)

// Declares `mode`, the mode argument of open/openat after `flags`: passed only when the call may
// create a file, so read from the variadic arguments only then (0 otherwise).
#define PARTKV_OPEN_MODE(flags, mode)                               \
  mode_t mode = 0;                                                  \
  if (((flags)&O_CREAT) != 0 || ((flags)&O_TMPFILE) == O_TMPFILE) { \
    va_list ap;                                                     \
    va_start(ap, flags);                                            \
    mode = static_cast<mode_t>(va_arg(ap, int));                    \
    va_end(ap);                                                     \
  }

bool Writes(int flags) { return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0; }

}  // namespace

void ArmKillPoint(uint64_t n) {
  count.store(0);
  kill_at.store(n);
  armed.store(true, std::memory_order_release);
}

uint64_t DisarmKillPoint() {
  armed.store(false, std::memory_order_release);
  return count.load();
}

}  // namespace partkv::crash

using partkv::crash::Change;
using partkv::crash::Next;
using partkv::crash::Writes;

extern "C" {

int open(const char* path, int flags, ...) {
  PARTKV_NEXT(open);
  PARTKV_OPEN_MODE(flags, mode);
  if (Writes(flags)) Change();
  return real(path, flags, mode);
}

int openat(int dir, const char* path, int flags, ...) {
  PARTKV_NEXT(openat);
  PARTKV_OPEN_MODE(flags, mode);
  if (Writes(flags)) Change();
  return real(dir, path, flags, mode);
}

ssize_t write(int fd, const void* buf, size_t n) {
  PARTKV_NEXT(write);
  Change();
  return real(fd, buf, n);
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t offset) {
  PARTKV_NEXT(pwrite);
  Change();
  return real(fd, buf, n, offset);
}

int fsync(int fd) {
  PARTKV_NEXT(fsync);
  Change();
  return real(fd);
}

int fdatasync(int fd) {
  PARTKV_NEXT(fdatasync);
  Change();
  return real(fd);
}

int sync_file_range(int fd, off_t offset, off_t n, unsigned int flags) {
  PARTKV_NEXT(sync_file_range);
  Change();
  return real(fd, offset, n, flags);
}

int ftruncate(int fd, off_t length) {
  PARTKV_NEXT(ftruncate);
  Change();
  return real(fd, length);
}

int fallocate(int fd, int mode, off_t offset, off_t length) {
  PARTKV_NEXT(fallocate);
  Change();
  return real(fd, mode, offset, length);
}

int rename(const char* from, const char* to) {
  PARTKV_NEXT(rename);
  Change();
  return real(from, to);
}

int link(const char* from, const char* to) {
  PARTKV_NEXT(link);
  Change();
  return real(from, to);
}

int unlink(const char* path) {
  PARTKV_NEXT(unlink);
  Change();
  return real(path);
}

int remove(const char* path) {
  PARTKV_NEXT(remove);
  Change();
  return real(path);
}

int mkdir(const char* path, mode_t mode) {
  PARTKV_NEXT(mkdir);
  Change();
  return real(path, mode);
}

int rmdir(const char* path) {
  PARTKV_NEXT(rmdir);
  Change();
  return real(path);
}

}  // extern "C"
