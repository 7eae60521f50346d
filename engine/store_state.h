// StoreState: the open RocksDB database behind a Store, its catalog of tables, the ETag allocator
// and the store's clock. Shared (std::shared_ptr) by the Store handle and every TableState, so the
// database closes when the last of them goes.
//
// Ownership: StoreState owns the rocksdb::DB, the `meta` column family handle and, through
// TableData, every partition column family handle; all handles are destroyed before the database
// is closed. Thread-safety: all public methods are thread-safe; the catalog is guarded by a mutex,
// the hot paths (clock, ETags) are lock-free in the common case.

#ifndef PARTKV_ENGINE_STORE_STATE_H_
#define PARTKV_ENGINE_STORE_STATE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/catalog.h"
#include "engine/recovery.h"
#include "engine/resume_cache.h"
#include "engine/table_data.h"
#include "partkv/options.h"
#include "partkv/result.h"
#include "partkv/table.h"
#include "rocksdb/db.h"

namespace partkv::engine {

class StoreState {
 public:
  static Result<std::shared_ptr<StoreState>> Open(std::string path, const StoreOptions& options);
  ~StoreState();
  StoreState(const StoreState&) = delete;
  StoreState& operator=(const StoreState&) = delete;

  rocksdb::DB* db() const { return db_.get(); }
  const std::string& path() const { return path_; }
  // The per-store random secret keying continuation-token checksums (32 bytes).
  const std::string& secret() const { return secret_; }

  Status CreateTable(std::string_view name, const TableOptions& options);
  Status DropTable(std::string_view name);
  std::vector<TableInfo> ListTables() const;
  Result<std::shared_ptr<TableData>> FindTable(std::string_view name) const;
  // Table::SetAccessPolicies: rewrites the table's catalog record with `policies`.
  Status SetAccessPolicies(TableData* table, std::vector<AccessPolicy> policies);
  // Store::ServiceProperties / SetServiceProperties.
  Result<std::string> ServiceProperties() const;
  Status SetServiceProperties(std::string_view document);

  // A new ETag version, never issued before by this store (also across restarts).
  Result<uint64_t> NextEtagVersion() { return NextEtagVersions(1); }
  // The first of `n` consecutive new ETag versions (one atomic step for a whole batch).
  Result<uint64_t> NextEtagVersions(uint64_t n);
  // The store's time for a write: wall-clock ticks, never below the last one issued in this
  // process, so Timestamps do not go backwards while the process runs.
  int64_t NowTicks();
  // Tests replace the wall clock (ticks since 0001-01-01) to simulate clock steps.
  void SetClockForTesting(std::function<int64_t()> clock);

  Status Flush();
  // Waits until the storage engine takes writes again after a background error
  // (engine/recovery.h).
  Status AwaitWritable(std::chrono::milliseconds timeout) {
    return recovery_->AwaitWritable(timeout);
  }

  // The streams of paged reads kept between pages (engine/resume_cache.h). Every write calls
  // resume_cache().OnWrite() first; the cache is cleared before a table is dropped or the
  // database closes.
  ResumeCache& resume_cache() const { return resume_cache_; }
  // The column family options of a table with `partitions` physical partitions. The memtable
  // bloom filter is allocated whole by every memtable, idle or not, and charged to the memory
  // budget, so its size per partition shrinks as the partition count grows.
  rocksdb::ColumnFamilyOptions PartitionOptions(uint32_t partitions) const;

 private:
  StoreState() = default;
  Status LoadCatalog(std::vector<rocksdb::ColumnFamilyHandle*>* handles,
                     const std::vector<std::string>& names);
  Status ReserveEtags(uint64_t needed);
  // Resolves a table's profile and throttling (its own, else the store's) and applies them.
  Status ConfigureTable(TableData* data);

  std::string path_;
  std::string secret_;
  rocksdb::ColumnFamilyOptions partition_options_;
  size_t memory_budget_ = 0;
  std::string default_profile_;
  bool default_throttling_ = false;
  std::shared_ptr<Clock> clock_source_;
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* meta_ = nullptr;  // owned; destroyed in ~StoreState
  rocksdb::ColumnFamilyHandle* default_ = nullptr;

  mutable std::mutex catalog_mu_;
  std::map<std::string, std::shared_ptr<TableData>> tables_;  // by lower-cased name
  uint32_t next_table_id_ = 1;

  std::mutex etag_mu_;
  std::atomic<uint64_t> next_etag_{1};
  std::atomic<uint64_t> etag_limit_{0};  // versions below this are reserved on disk

  std::atomic<int64_t> last_ticks_{0};
  mutable ResumeCache resume_cache_;
  std::shared_ptr<RecoveryWatch> recovery_ = std::make_shared<RecoveryWatch>();
  std::function<int64_t()> clock_;  // null: the system clock
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_STORE_STATE_H_
