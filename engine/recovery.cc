#include "engine/recovery.h"

#include <string>

namespace partkv::engine {

void RecoveryWatch::OnBackgroundError(rocksdb::BackgroundErrorReason /*reason*/,
                                      rocksdb::Status* error) {
  // A listener may overwrite *error to make RocksDB ignore it; this one only records it.
  if (error == nullptr || error->ok()) return;
  std::lock_guard<std::mutex> lock(mu_);
  error_ = *error;
  changed_.notify_all();
}

void RecoveryWatch::OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  error_ = info.new_bg_error;
  changed_.notify_all();
}

Status RecoveryWatch::AwaitWritable(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  if (changed_.wait_for(lock, timeout, [this] { return error_.ok(); })) return Status::OK();
  return Status::IOError("the store still refuses writes after waiting " +
                         std::to_string(timeout.count()) + " ms for the storage engine to " +
                         "recover from: " + error_.ToString());
}

}  // namespace partkv::engine
