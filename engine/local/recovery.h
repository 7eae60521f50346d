// RecoveryWatch: whether the storage engine has stopped taking writes after a background error
// (a full disk, a failed flush or WAL write), and a way to wait until it recovers.
//
// RocksDB recovers from some of these errors by itself: from a full disk once enough space is
// free again (its SstFileManager checks every few seconds), from a retryable I/O error by
// retrying. It reports the error and the end of each recovery attempt to its event listeners;
// RecoveryWatch is such a listener, installed on every store, and Store::AwaitWritable waits on
// it instead of retrying writes at a guess.
//
// It also follows RocksDB's write-stall condition (normal, delayed, stopped) so that a write that
// would wait for flushes and compactions waits a bounded time (StoreState::Write).
//
// Thread-safety: all methods are thread-safe. RocksDB calls the listener methods from its own
// threads (and from a failing foreground write), without the database mutex held.

#ifndef PARTKV_ENGINE_LOCAL_RECOVERY_H_
#define PARTKV_ENGINE_LOCAL_RECOVERY_H_

#include <chrono>
#include <string>

#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "partkv/status.h"
#include "rocksdb/listener.h"

namespace partkv::engine {

class RecoveryWatch : public rocksdb::EventListener {
 public:
  const char* Name() const override { return "partkv.RecoveryWatch"; }

  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* error) override
      PARTKV_EXCLUDES(mu_);
  void OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) override
      PARTKV_EXCLUDES(mu_);
  void OnStallConditionsChanged(const rocksdb::WriteStallInfo& info) override PARTKV_EXCLUDES(mu_);

  // Column families whose writes RocksDB currently stops, and delays.
  int stopped() const PARTKV_EXCLUDES(mu_);
  int delayed() const PARTKV_EXCLUDES(mu_);
  // Waits until no column family is stopped, `deadline` passes, or at most `step` (a bound on a
  // missed notification); true when none is stopped on return.
  bool AwaitNotStopped(std::chrono::steady_clock::time_point deadline,
                       std::chrono::milliseconds step) PARTKV_EXCLUDES(mu_);

  // OK when no background error stops writes, or once a recovery ends without one, within
  // `timeout`; otherwise IOError naming the error that still stops writes and the time waited.
  Status AwaitWritable(std::chrono::milliseconds timeout) PARTKV_EXCLUDES(mu_);

 private:
  mutable port::Mutex mu_;
  port::CondVar changed_{&mu_};  // signalled on every change of the fields below
  // The background error that stops writes; OK when none.
  rocksdb::Status error_ PARTKV_GUARDED_BY(mu_);
  // Column families in each stall condition.
  int stopped_ PARTKV_GUARDED_BY(mu_) = 0;
  int delayed_ PARTKV_GUARDED_BY(mu_) = 0;
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_RECOVERY_H_
