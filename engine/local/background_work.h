// AwaitBackgroundWork: the engine side of Store::AwaitBackgroundWork — waiting until RocksDB has
// no flush or compaction pending or running, for measurements of a settled store.
//
// RocksDB (7.x) offers no call that waits for this, so its counters are polled: the running
// flushes and compactions (database-wide) and the pending ones (summed over the column
// families). Thread-safe.

#ifndef PARTKV_ENGINE_LOCAL_BACKGROUND_WORK_H_
#define PARTKV_ENGINE_LOCAL_BACKGROUND_WORK_H_

#include <chrono>

#include "partkv/status.h"
#include "rocksdb/db.h"

namespace partkv::engine {

// Polls every `poll` until `db` is quiet: OK; Busy when `timeout` passed first.
Status AwaitBackgroundWork(rocksdb::DB* db, std::chrono::milliseconds timeout,
                           std::chrono::milliseconds poll = std::chrono::milliseconds(10));

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_BACKGROUND_WORK_H_
