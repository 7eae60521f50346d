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
#include <condition_variable>
#include <mutex>
#include <string>

#include "partkv/status.h"
#include "rocksdb/listener.h"

namespace partkv::engine {

class RecoveryWatch : public rocksdb::EventListener {
 public:
  const char* Name() const override { return "partkv.RecoveryWatch"; }

  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* error) override;
  void OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) override;
  void OnStallConditionsChanged(const rocksdb::WriteStallInfo& info) override;

  // Column families whose writes RocksDB currently stops, and delays.
  int stopped() const;
  int delayed() const;
  // Waits until no column family is stopped, `deadline` passes, or at most `step` (a bound on a
  // missed notification); true when none is stopped on return.
  bool AwaitNotStopped(std::chrono::steady_clock::time_point deadline,
                       std::chrono::milliseconds step);

  // OK when no background error stops writes, or once a recovery ends without one, within
  // `timeout`; otherwise IOError naming the error that still stops writes and the time waited.
  Status AwaitWritable(std::chrono::milliseconds timeout);

 private:
  mutable std::mutex mu_;
  std::condition_variable changed_;
  rocksdb::Status error_;  // the background error that stops writes; OK when none
  int stopped_ = 0, delayed_ = 0;  // column families in each stall condition
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_RECOVERY_H_
