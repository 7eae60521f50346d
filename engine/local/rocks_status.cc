#include "engine/local/rocks_status.h"

#include <string>

namespace partkv::engine {

Status FromRocks(const rocksdb::Status& s, std::string_view context) {
  if (s.ok()) return Status::OK();
  std::string msg = std::string(context) + ": " + s.ToString();
  switch (s.code()) {
    case rocksdb::Status::kNotFound:
      return Status::NotFound(msg);
    case rocksdb::Status::kCorruption:
      return Status::Corruption(msg);
    case rocksdb::Status::kInvalidArgument:
    case rocksdb::Status::kNotSupported:
      return Status::InvalidArgument(msg);
    case rocksdb::Status::kBusy:
    case rocksdb::Status::kTimedOut:
    case rocksdb::Status::kTryAgain:
      return Status::Busy(msg);
    case rocksdb::Status::kIOError:
      // Another process (or handle) holds the LOCK file: the store is in use, not broken. Match
      // RocksDB's own wording for a failed lock, not any path that happens to contain "lock".
      if (s.ToString().find("lock hold by current process") != std::string::npos) {
        return Status::Busy(std::string(context) +
                            ": the store is already open in this process (a Store or Table "
                            "handle of it is still alive; share that handle, or let it go "
                            "first) (" +
                            s.ToString() + ")");
      }
      if (s.ToString().find("While lock file") != std::string::npos) {
        return Status::Busy(std::string(context) +
                            ": the store is already open in another process (" + s.ToString() +
                            ")");
      }
      return Status::IOError(msg);
    default:
      return Status::IOError(msg);
  }
}

}  // namespace partkv::engine
