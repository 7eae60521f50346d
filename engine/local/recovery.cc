#include "engine/local/recovery.h"

#include <initializer_list>
#include <string>
#include <utility>

namespace partkv::engine {

void RecoveryWatch::OnBackgroundError(rocksdb::BackgroundErrorReason /*reason*/,
                                      rocksdb::Status* error) {
  // A listener may overwrite *error to make RocksDB ignore it; this one only records it.
  if (error == nullptr || error->ok()) return;
  port::MutexLock lock(&mu_);
  error_ = *error;
  changed_.SignalAll();
}

void RecoveryWatch::OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) {
  port::MutexLock lock(&mu_);
  error_ = info.new_bg_error;
  changed_.SignalAll();
}

Status RecoveryWatch::AwaitWritable(std::chrono::milliseconds timeout) {
  port::MutexLock lock(&mu_);
  // As std::condition_variable::wait_for with a predicate: until a deadline on the steady clock.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!error_.ok()) {
    if (!changed_.WaitUntil(deadline)) break;
  }
  if (error_.ok()) return Status::OK();
  return Status::IOError("the store still refuses writes after waiting " +
                         std::to_string(timeout.count()) + " ms for the storage engine to " +
                         "recover from: " + error_.ToString());
}

void RecoveryWatch::OnStallConditionsChanged(const rocksdb::WriteStallInfo& info) {
  using C = rocksdb::WriteStallCondition;
  port::MutexLock lock(&mu_);
  for (auto [c, d] : {std::pair{info.condition.prev, -1}, std::pair{info.condition.cur, +1}}) {
    if (c == C::kStopped) stopped_ += d;
    if (c == C::kDelayed) delayed_ += d;
  }
  changed_.SignalAll();
}

int RecoveryWatch::stopped() const {
  port::MutexLock lock(&mu_);
  return stopped_;
}

int RecoveryWatch::delayed() const {
  port::MutexLock lock(&mu_);
  return delayed_;
}

bool RecoveryWatch::AwaitNotStopped(std::chrono::steady_clock::time_point deadline,
                                    std::chrono::milliseconds step) {
  port::MutexLock lock(&mu_);
  auto until = std::min(deadline, std::chrono::steady_clock::now() + step);
  while (stopped_ > 0) {
    if (!changed_.WaitUntil(until)) break;
  }
  return stopped_ <= 0;
}

}  // namespace partkv::engine
