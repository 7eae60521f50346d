#include "engine/local/background_work.h"

#include <string>
#include <thread>

namespace partkv::engine {
namespace {

bool Busy(rocksdb::DB* db) {
  for (const std::string* name : {&rocksdb::DB::Properties::kNumRunningCompactions,
                                  &rocksdb::DB::Properties::kNumRunningFlushes,
                                  &rocksdb::DB::Properties::kMemTableFlushPending,
                                  &rocksdb::DB::Properties::kCompactionPending}) {
    uint64_t v = 0;
    if (db->GetAggregatedIntProperty(*name, &v) && v != 0) return true;
  }
  return false;
}

}  // namespace

Status AwaitBackgroundWork(rocksdb::DB* db, std::chrono::milliseconds timeout,
                           std::chrono::milliseconds poll) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (Busy(db)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status::Busy("flushes or compactions still pending or running after " +
                          std::to_string(timeout.count()) + " ms");
    }
    std::this_thread::sleep_for(poll);
  }
  return Status::OK();
}

}  // namespace partkv::engine
