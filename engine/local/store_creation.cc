#include "engine/local/store_creation.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <regex>
#include <vector>

namespace partkv::engine {
namespace {

namespace fs = std::filesystem;

Status Errno(const std::string& what) {
  return Status::IOError(what + ": " + std::strerror(errno));
}

// fsync of a directory, so that the entries created or removed in it survive a power loss.
Status SyncDirectory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("open directory '" + dir + "' to sync it");
  int rc = ::fsync(fd);
  Status s = rc == 0 ? Status::OK() : Errno("sync directory '" + dir + "'");
  ::close(fd);
  return s;
}

bool SameFile(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

bool HasCreationMarker(const std::string& path) {
  struct stat st {};
  return ::lstat((path + "/" + kCreationMarker).c_str(), &st) == 0;
}

bool IsDatabaseFileName(std::string_view name) {
  // RocksDB's ParseFileName (file/filename.cc) for the files one database directory holds.
  static const std::regex kNames(
      R"(CURRENT|IDENTITY|LOCK|LOG|LOG\.old(\.[0-9]+)?|(MANIFEST|OPTIONS)-[0-9]+(\.dbtmp)?|)"
      R"([0-9]+\.(log|sst|ldb|blob|dbtmp))");
  return std::regex_match(name.begin(), name.end(), kNames);
}

Result<std::unique_ptr<StoreCreation>> StoreCreation::Begin(const std::string& path) {
  std::error_code ec;
  bool created_dir = fs::create_directories(path, ec);
  if (ec) return Status::IOError("create store directory '" + path + "': " + ec.message());
  const std::string marker = path + "/" + kCreationMarker;
  // A few rounds: each restart means another process finished or abandoned a creation between
  // two of our steps.
  for (int round = 0; round < 4; ++round) {
    int fd = ::open(marker.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    const bool fresh = fd >= 0;
    if (!fresh) {
      if (errno != EEXIST) return Errno("create '" + marker + "'");
      fd = ::open(marker.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
      if (fd < 0 && errno == ENOENT) continue;  // its creator finished just now
      if (fd < 0) return Errno("open '" + marker + "'");
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK) {
        return Status::Busy("store '" + path + "' is being created by another process");
      }
      errno = err;
      return Errno("lock '" + marker + "'");
    }
    // The marker we locked must still be the one at the path: its creator may have committed
    // (removed it) after we opened it.
    struct stat held = {};
    struct stat now = {};
    if (::fstat(fd, &held) != 0 || ::lstat(marker.c_str(), &now) != 0 || !SameFile(held, now)) {
      ::close(fd);
      continue;
    }
    std::vector<std::string> leftovers, foreign;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      std::string name = entry.path().filename().string();
      if (name == kCreationMarker) continue;
      bool ours = IsDatabaseFileName(name) && entry.is_regular_file(ec);
      (ours ? leftovers : foreign).push_back(name);
    }
    if (ec) {
      ::close(fd);
      return Status::IOError("list store directory '" + path + "': " + ec.message());
    }
    if (fresh && !(leftovers.empty() && foreign.empty())) {
      // The directory filled between the caller's look and our marker: another process created
      // a store here. Withdraw the marker (ours, just made) and let the caller open that store.
      ::unlink(marker.c_str());
      ::close(fd);
      return std::unique_ptr<StoreCreation>();
    }
    if (!foreign.empty()) {
      ::close(fd);
      return Status::InvalidArgument(
          "'" + path + "' holds an unfinished store creation (" + kCreationMarker +
          ") and files partkv did not write, such as '" + foreign.front() +
          "'; nothing was changed: remove the directory or those files");
    }
    for (const auto& name : leftovers) {
      // LOCK may be held by a process that opened these files with RocksDB itself: RocksDB's
      // own Open below then reports Busy. Everything else is what the dead creation wrote.
      if (name == "LOCK") continue;
      if (::unlink((path + "/" + name).c_str()) != 0 && errno != ENOENT) {
        Status s = Errno("remove '" + name + "' left by an interrupted store creation");
        ::close(fd);
        return s;
      }
    }
    // The marker is on disk before RocksDB writes anything.
    if (Status s = SyncDirectory(path); !s.ok()) {
      ::close(fd);
      return s;
    }
    return std::unique_ptr<StoreCreation>(new StoreCreation(path, fd, created_dir));
  }
  return Status::Busy("store '" + path + "' is being created by another process");
}

StoreCreation::~StoreCreation() {
  if (marker_fd_ >= 0) ::close(marker_fd_);
}

Status StoreCreation::Commit() {
  const std::string marker = path_ + "/" + kCreationMarker;
  if (::unlink(marker.c_str()) != 0) return Errno("remove '" + marker + "'");
  PARTKV_RETURN_IF_ERROR(SyncDirectory(path_));
  if (created_dir_) {
    fs::path dir = fs::path(path_).lexically_normal();
    if (!dir.has_filename()) dir = dir.parent_path();  // "a/b/" names b
    std::string parent = dir.parent_path().string();
    PARTKV_RETURN_IF_ERROR(SyncDirectory(parent.empty() ? "." : parent));
  }
  ::close(marker_fd_);
  marker_fd_ = -1;
  return Status::OK();
}

}  // namespace partkv::engine
