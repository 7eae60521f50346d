#include "engine/local/recovery.h"

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

void RecoveryWatch::OnStallConditionsChanged(const rocksdb::WriteStallInfo& info) {
  using C = rocksdb::WriteStallCondition;
  std::lock_guard<std::mutex> lock(mu_);
  auto adjust = [this](C c, int d) {
    if (c == C::kStopped) stopped_ += d;
    if (c == C::kDelayed) delayed_ += d;
  };
  adjust(info.condition.prev, -1);
  adjust(info.condition.cur, +1);
  changed_.notify_all();
}

int RecoveryWatch::stopped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopped_;
}

int RecoveryWatch::delayed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return delayed_;
}

bool RecoveryWatch::AwaitNotStopped(std::chrono::steady_clock::time_point deadline,
                                    std::chrono::milliseconds step) {
  std::unique_lock<std::mutex> lock(mu_);
  auto until = std::min(deadline, std::chrono::steady_clock::now() + step);
  return changed_.wait_until(lock, until, [this] { return stopped_ <= 0; });
}

}  // namespace partkv::engine
