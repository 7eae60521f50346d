// RocksDB keeps per-thread performance counters, on by default (PerfLevel kEnableCount): every
// iterator step adds to several of them, and as librocksdb is a shared library each addition is
// a call to __tls_get_addr. partkv reads none of them. A scan turns them off on its thread while
// it runs: a no-match filter over 110,000 rows in memtables took 16.4 ms on one thread with them,
// 13.7 ms without. The scan pool's workers run with them off (StoreState's scan pool).
//
// Thread-safety: the level is per thread; an object is used on the thread that made it.

#ifndef PARTKV_ENGINE_LOCAL_PERF_COUNTERS_H_
#define PARTKV_ENGINE_LOCAL_PERF_COUNTERS_H_

#include "rocksdb/perf_level.h"

namespace partkv::engine {

// Turns RocksDB's counters off on this thread for the object's life, then restores the level the
// thread had (an application that reads rocksdb::get_perf_context() keeps its own setting
// outside partkv's calls).
class PerfCountersOff {
 public:
  PerfCountersOff() : saved_(rocksdb::GetPerfLevel()) {
    if (saved_ != rocksdb::PerfLevel::kDisable) rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
  }
  ~PerfCountersOff() {
    if (saved_ != rocksdb::PerfLevel::kDisable) rocksdb::SetPerfLevel(saved_);
  }
  PerfCountersOff(const PerfCountersOff&) = delete;
  PerfCountersOff& operator=(const PerfCountersOff&) = delete;

 private:
  rocksdb::PerfLevel saved_;
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_PERF_COUNTERS_H_
