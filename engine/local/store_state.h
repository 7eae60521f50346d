// StoreState: the open RocksDB database behind a Store, its catalog of tables, the row locks, the
// store's clock (which issues every Timestamp and ETag) and the bounded write path. Shared
// (std::shared_ptr) by the Store handle and every TableHandle, so the database closes when the
// last of them goes.
//
// Ownership: StoreState owns the rocksdb::DB and every column family handle (`meta` and the
// shared data column families); all handles are destroyed before the database is closed.
// Thread-safety: all public methods are thread-safe; the catalog is guarded by a mutex, the hot
// paths (clock, row locks) are lock-free or striped.

#ifndef PARTKV_ENGINE_LOCAL_STORE_STATE_H_
#define PARTKV_ENGINE_LOCAL_STORE_STATE_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/local/catalog.h"
#include "engine/local/dropped_tables.h"
#include "engine/local/recovery.h"
#include "engine/local/resume_cache.h"
#include "engine/local/scan_merge.h"
#include "engine/local/shared_table.h"
#include "engine/worker_pool.h"
#include "partkv/options.h"
#include "partkv/result.h"
#include "partkv/table_info.h"
#include "rocksdb/db.h"

namespace partkv::engine {

class StoreState {
 public:
  static Result<std::shared_ptr<StoreState>> Open(std::string path, const StoreOptions& options);
  // The block cache a store of this memory budget uses (RocksDB's HyperClockCache; docs/design.md
  // "The block cache"), for raw RocksDB baselines configured like a store.
  static std::shared_ptr<rocksdb::Cache> NewBlockCache(size_t capacity);
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
  Result<std::shared_ptr<SharedTable>> FindTable(std::string_view name) const;
  // Table::SetAccessPolicies: rewrites the table's catalog record with `policies`.
  Status SetAccessPolicies(SharedTable* table, std::vector<AccessPolicy> policies);
  // Store::ServiceProperties / SetServiceProperties.
  Result<std::string> ServiceProperties() const;
  Status SetServiceProperties(std::string_view document);

  // The first of `n` consecutive ticks (100 ns units since 0001-01-01 UTC) for writes: each is
  // a written entity's Timestamp and ETag version. Every tick is above every tick this store
  // issued before, also across restarts, crashes and wall-clock steps (the mark below which
  // ticks may have been issued is persisted ahead of use), and follows the wall clock whenever
  // the wall clock is ahead.
  Result<int64_t> IssueTicks(uint64_t n);
  // The store's time for records that need no uniqueness (a table's creation time): the wall
  // clock, never below the last tick issued.
  int64_t NowTicks();
  // Tests replace the wall clock (ticks since 0001-01-01) to simulate clock steps.
  void SetClockForTesting(std::function<int64_t()> clock);

  // Writes `batch` with the store's stall bound: while RocksDB stops writes for flushes and
  // compactions to catch up the write waits at most StoreOptions::write_stall_timeout, then
  // fails with Busy without writing. `what` names the write in errors.
  Status Write(bool sync, rocksdb::WriteBatch* batch, std::string_view what);

  // Row locks: a write to a row holds the stripe of its full key's hash. Batches lock their
  // stripes in ascending index order, so lockers never deadlock. Striped store-wide: a table
  // costs no locks of its own.
  static constexpr size_t kLockStripes = 4096;
  std::mutex& Stripe(size_t index) { return stripes_[index]; }
  static size_t StripeOf(uint64_t key_hash) { return key_hash % kLockStripes; }
  // Locks the stripe of every full key in `keys`, each once, in ascending index order (batches
  // and bulk-write groups alike); the locks are released when the result is destroyed.
  std::vector<std::unique_lock<std::mutex>> LockRows(const std::vector<std::string_view>& keys);

  // The shared data column families.
  const std::vector<rocksdb::ColumnFamilyHandle*>& data_column_families() const { return data_; }

  Status Flush();
  // Waits until the storage engine takes writes again after a background error
  // (engine/local/recovery.h).
  Status AwaitWritable(std::chrono::milliseconds timeout) {
    return recovery_->AwaitWritable(timeout);
  }

  // The streams of paged reads kept between pages (engine/local/resume_cache.h). Every write calls
  // resume_cache().OnWrite() first; the cache is cleared before a table is dropped or the
  // database closes.
  ResumeCache& resume_cache() const { return resume_cache_; }
  // The workers of queries that read several physical partitions at once, and how many threads
  // one query may use (StoreOptions::scan_threads, resolved; the caller counts as one).
  WorkerPool& scan_pool() const { return *scan_pool_; }
  size_t scan_threads() const { return scan_threads_; }
  // The buffers merged reads' lanes reuse (engine/local/scan_merge.h).
  const std::shared_ptr<ScanMerge::SpareLanes>& spare_lanes() const { return spare_lanes_; }
  // StoreOptions::memory_budget_bytes: the block cache's capacity.
  size_t memory_budget() const { return memory_budget_; }
  // The options of a data column family when the store has `count` of them. The memtable bloom
  // filter is allocated whole by every memtable, idle or not, and charged to the memory budget,
  // so its size per column family shrinks as their count grows.
  rocksdb::ColumnFamilyOptions DataOptions(uint32_t count) const;

  // The physical partitions of `record` in this store's data column families.
  std::vector<PhysicalPartition> PartitionsOf(const TableRecord& record) const;

 private:
  friend Status MigrateFormat1(
      StoreState* store,
      const std::vector<std::pair<std::string, rocksdb::ColumnFamilyHandle*>>& format1);
  StoreState() = default;
  Status LoadCatalog();
  // Creates the data column families d0..d<count-1> that are missing.
  Status CreateDataColumnFamilies(uint32_t count);
  Status ReserveTicks(int64_t needed);
  // Resolves a table's profile and throttling (its own, else the store's) and applies them.
  Status ConfigureTable(SharedTable* data);

  std::string path_;
  std::string secret_;
  rocksdb::ColumnFamilyOptions partition_options_;
  size_t memory_budget_ = 0;
  std::chrono::milliseconds write_stall_timeout_{60'000};
  std::string default_profile_;
  bool default_throttling_ = false;
  std::shared_ptr<Clock> clock_source_;
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* meta_ = nullptr;  // owned; destroyed in ~StoreState
  rocksdb::ColumnFamilyHandle* default_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> data_;  // owned; "d0", "d1", ...

  mutable std::mutex catalog_mu_;
  std::map<std::string, std::shared_ptr<SharedTable>> tables_;  // by lower-cased name
  uint32_t next_table_id_ = 1;

  std::mutex clock_mu_;
  std::atomic<int64_t> last_ticks_{0};     // the last tick issued
  std::atomic<int64_t> ticks_limit_{0};    // ticks below this are reserved on disk
  std::array<std::mutex, kLockStripes> stripes_;
  mutable ResumeCache resume_cache_;
  std::shared_ptr<DroppedTables> dropped_ = std::make_shared<DroppedTables>();
  std::shared_ptr<RecoveryWatch> recovery_ = std::make_shared<RecoveryWatch>();
  std::function<int64_t()> clock_;  // null: the system clock
  size_t scan_threads_ = 1;
  // Idle whenever no query runs (every query holds the store), so it may stop in any order.
  std::unique_ptr<WorkerPool> scan_pool_;
  std::shared_ptr<ScanMerge::SpareLanes> spare_lanes_ =
      std::make_shared<ScanMerge::SpareLanes>();
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_STORE_STATE_H_
