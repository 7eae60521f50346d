// StoreState's clock and bounded write path (engine/local/store_state.h): the ticks that become
// every Timestamp and ETag, persisted ahead of use, and the one way the store writes to RocksDB.

#include <bitset>
#include <chrono>
#include <string>

#include "engine/local/catalog.h"
#include "engine/local/rocks_status.h"
#include "engine/local/shared_table.h"
#include "engine/local/store_state.h"
#include "partkv/value.h"

namespace partkv::engine {
namespace {

// Clock ticks are reserved on disk one second ahead, so issuing one costs an atomic step and a
// synced meta write happens at most about once a second. After a crash the clock resumes at the
// reserved mark: at most a second ahead of the wall clock.
constexpr int64_t kTicksReserveBlock = 10'000'000;

int64_t SystemTicks() {
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  return DateTime::FromUnixMicros(micros).ticks;
}

}  // namespace

Status StoreState::ReserveTicks(int64_t needed) {
  int64_t limit = std::max(ticks_limit_.load(), needed) + kTicksReserveBlock;
  rocksdb::WriteOptions wo;
  wo.sync = true;
  rocksdb::Status s = db_->Put(wo, meta_, kClockReservedKey, std::to_string(limit));
  if (!s.ok()) return FromRocks(s, "reserve clock ticks");
  ticks_limit_.store(limit, std::memory_order_release);
  return Status::OK();
}

Result<int64_t> StoreState::IssueTicks(uint64_t n) {
  const auto count = static_cast<int64_t>(std::max<uint64_t>(n, 1));
  const int64_t now = clock_ ? clock_() : SystemTicks();
  int64_t last = last_ticks_.load(std::memory_order_relaxed);
  int64_t first;
  do {
    first = std::max(now, last + 1);
  } while (!last_ticks_.compare_exchange_weak(last, first + count - 1, std::memory_order_relaxed));
  const int64_t end = first + count;  // one past the last tick issued
  if (end <= ticks_limit_.load(std::memory_order_acquire)) return first;
  port::MutexLock lock(&clock_mu_);
  if (end > ticks_limit_.load(std::memory_order_acquire)) {
    PARTKV_RETURN_IF_ERROR(ReserveTicks(end));
  }
  return first;
}

int64_t StoreState::NowTicks() const {
  int64_t now = clock_ ? clock_() : SystemTicks();
  return std::max(now, last_ticks_.load(std::memory_order_relaxed));
}

Status StoreState::Write(bool sync, rocksdb::WriteBatch* batch, std::string_view what) {
  rocksdb::WriteOptions wo;
  wo.sync = sync;
  // no_slowdown: RocksDB answers Incomplete at once instead of blocking while it delays or stops
  // writes, so the wait is ours to bound.
  wo.no_slowdown = true;
  const auto deadline = std::chrono::steady_clock::now() + write_stall_timeout_;
  resume_cache_.OnWrite();
  for (;;) {
    rocksdb::Status s = db_->Write(wo, batch);
    if (!s.IsIncomplete()) return FromRocks(s, what);
    if (recovery_->stopped() <= 0) {
      // Delayed, not stopped: the write goes through at RocksDB's delayed rate. (Should writes
      // stop meanwhile, RocksDB ends the stop as its flushes and compactions catch up.)
      wo.no_slowdown = false;
      return FromRocks(db_->Write(wo, batch), what);
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    recovery_->AwaitNotStopped(deadline, std::chrono::milliseconds(100));
  }
  return Status::Busy(std::string(what) + ": the storage engine has held writes back for " +
                      std::to_string(write_stall_timeout_.count()) +
                      " ms while its flushes and compactions catch up; nothing was written "
                      "(StoreOptions::write_stall_timeout)");
}

void StoreState::SetClockForTesting(std::function<int64_t()> clock) {
  clock_ = std::move(clock);
  dropped_->SetClock(clock_);  // the compaction filter's expiries follow the same clock
}

StoreState::RowLocks StoreState::LockRows(const std::vector<std::string_view>& keys) {
  std::bitset<kLockStripes> stripes;
  for (std::string_view key : keys) stripes.set(StripeOf(HashBytes(key)));
  RowLocks locks;
  locks.reserve(stripes.count());
  for (size_t s = 0; s < kLockStripes; ++s) {
    if (stripes.test(s)) locks.emplace_back(stripes_[s]);
  }
  return locks;
}

}  // namespace partkv::engine
