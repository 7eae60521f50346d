#include "engine/local/info_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <ctime>

#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"

namespace partkv::engine {
namespace {

// RocksDB's longest lines (an options dump, a compaction summary) fit; longer ones are cut.
constexpr size_t kMaxLine = 4096;

class InfoLog final : public rocksdb::Logger {
 public:
  InfoLog(const std::string& dir, rocksdb::InfoLogLevel level)
      : rocksdb::Logger(level), path_(dir + "/LOG"), old_path_(dir + "/LOG.old") {}
  ~InfoLog() override { CloseFile(); }

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override PARTKV_EXCLUDES(mu_) {
    char line[kMaxLine];
    size_t n = Prefix(line, sizeof line);
    va_list copy;
    va_copy(copy, ap);
    int m = std::vsnprintf(line + n, sizeof line - n, format, copy);
    va_end(copy);
    if (m < 0) return;
    n = std::min(n + static_cast<size_t>(m), sizeof line - 2);
    if (n == 0 || line[n - 1] != '\n') line[n++] = '\n';
    port::MutexLock lock(&mu_);
    Append(line, n);
  }

  size_t GetLogFileSize() const override PARTKV_EXCLUDES(mu_) {
    port::MutexLock lock(&mu_);
    return size_;
  }

 protected:
  rocksdb::Status CloseImpl() override PARTKV_EXCLUDES(mu_) {
    CloseFile();
    return rocksdb::Status::OK();
  }

 private:
  // "2024/05/01-12:00:00.123456 4711 " like RocksDB's own lines: local time, thread id.
  static size_t Prefix(char* out, size_t size) {
    auto now = std::chrono::system_clock::now();
    auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch());
    std::time_t secs = static_cast<std::time_t>(micros.count() / 1'000'000);
    std::tm tm{};
    ::localtime_r(&secs, &tm);
    int n = std::snprintf(out, size, "%04d/%02d/%02d-%02d:%02d:%02d.%06lld %d ", tm.tm_year + 1900,
                          tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                          static_cast<long long>(micros.count() % 1'000'000),
                          static_cast<int>(::gettid()));
    return n < 0 ? 0 : std::min(static_cast<size_t>(n), size - 1);
  }

  // Writes one line; on any failure the line (or its unwritten rest) is dropped.
  void Append(const char* data, size_t n) PARTKV_REQUIRES(mu_) {
    if (fd_ >= 0 && size_ + n > kInfoLogMaxBytes) {
      CloseFileLocked();
      // The previous lines become LOG.old; if they cannot, LOG starts over: bounded either way.
      truncate_ = ::rename(path_.c_str(), old_path_.c_str()) != 0;
    }
    if (fd_ < 0 && !OpenFile()) return;
    if (torn_) {  // the previous line was cut short: end it, so this one starts a line
      if (::write(fd_, "\n", 1) != 1) return;
      torn_ = false;
      ++size_;
    }
    while (n > 0) {
      ssize_t w = ::write(fd_, data, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        torn_ = true;
        return;
      }
      size_ += static_cast<size_t>(w);
      data += w;
      n -= static_cast<size_t>(w);
      torn_ = n > 0;
    }
  }

  bool OpenFile() PARTKV_REQUIRES(mu_) {
    fd_ = ::open(path_.c_str(),
                 O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (truncate_ ? O_TRUNC : 0), 0644);
    if (fd_ < 0) return false;
    truncate_ = false;
    struct stat st = {};
    size_ = ::fstat(fd_, &st) == 0 ? static_cast<size_t>(st.st_size) : 0;
    torn_ = false;
    return true;
  }

  void CloseFile() PARTKV_EXCLUDES(mu_) {
    port::MutexLock lock(&mu_);
    CloseFileLocked();
  }
  void CloseFileLocked() PARTKV_REQUIRES(mu_) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  const std::string path_;
  const std::string old_path_;
  mutable port::Mutex mu_;
  int fd_ PARTKV_GUARDED_BY(mu_) = -1;
  size_t size_ PARTKV_GUARDED_BY(mu_) = 0;        // bytes in LOG
  bool torn_ PARTKV_GUARDED_BY(mu_) = false;      // the last line was cut short
  bool truncate_ PARTKV_GUARDED_BY(mu_) = false;  // the next open starts LOG over
};

}  // namespace

std::shared_ptr<rocksdb::Logger> NewInfoLog(const std::string& dir, rocksdb::InfoLogLevel level) {
  return std::make_shared<InfoLog>(dir, level);
}

}  // namespace partkv::engine
