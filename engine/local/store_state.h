// StoreState: the open RocksDB database behind a Store, its catalog of tables, the row locks, the
// store's clock (which issues every Timestamp and ETag) and the bounded write path. Shared
// (std::shared_ptr) by the Store handle and every TableHandle, so the database closes when the
// last of them goes.
//
// Ownership: StoreState owns the rocksdb::DB and every column family handle (`meta` and the
// shared data column families); all handles are destroyed before the database is closed.
// Thread-safety: all public methods are thread-safe; the catalog is guarded by a mutex, the hot
// paths (clock, row locks) are lock-free or striped. Lock order: below, at the mutexes.

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
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/local/catalog.h"
#include "engine/local/change_feed.h"
#include "engine/local/dropped_tables.h"
#include "engine/local/recovery.h"
#include "engine/local/resume_cache.h"
#include "engine/local/scan_merge.h"
#include "engine/local/shared_table.h"
#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "engine/worker_pool.h"
#include "partkv/options.h"
#include "partkv/result.h"
#include "partkv/table_info.h"
#include "rocksdb/db.h"

namespace partkv::engine {

class StoreCreation;  // engine/local/store_creation.h

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

  Status CreateTable(std::string_view name, const TableOptions& options)
      PARTKV_EXCLUDES(catalog_mu_);
  Status DropTable(std::string_view name) PARTKV_EXCLUDES(catalog_mu_);
  std::vector<TableInfo> ListTables() const PARTKV_EXCLUDES(catalog_mu_);
  Result<std::shared_ptr<SharedTable>> FindTable(std::string_view name) const
      PARTKV_EXCLUDES(catalog_mu_);
  // Table::SetAccessPolicies: rewrites the table's catalog record with `policies`.
  Status SetAccessPolicies(SharedTable* table, std::vector<AccessPolicy> policies)
      PARTKV_EXCLUDES(catalog_mu_);
  // Store::SetTableOptions.
  Status SetTableOptions(std::string_view name, const TableSettings& settings)
      PARTKV_EXCLUDES(catalog_mu_);
  // InvalidArgument, naming `what`, for settings no table may have.
  static Status CheckTableSettings(const TableSettings& settings, std::string_view what);
  // Every table of the catalog now.
  std::vector<std::shared_ptr<SharedTable>> Tables() const PARTKV_EXCLUDES(catalog_mu_);
  // Moves `table`'s oldest change feed position kept up to `trim`: durably, then in memory and
  // in the compaction filter, which then leaves out the entries below it.
  Status TrimFeed(SharedTable& table, uint64_t trim);
  // Tells the compaction filter what `table` leaves to reclaim (engine/local/dropped_tables.h).
  void UpdateReclaim(const SharedTable& table) const;
  // TableInfo of a table, with its settings as they are now.
  static TableInfo InfoOf(const SharedTable& table);

  // Store::ServiceProperties / SetServiceProperties.
  Result<std::string> ServiceProperties() const;
  Status SetServiceProperties(std::string_view document);

  // The first of `n` consecutive ticks (100 ns units since 0001-01-01 UTC) for writes: each is
  // a written entity's Timestamp and ETag version. Every tick is above every tick this store
  // issued before, also across restarts, crashes and wall-clock steps (the mark below which
  // ticks may have been issued is persisted ahead of use), and follows the wall clock whenever
  // the wall clock is ahead.
  Result<int64_t> IssueTicks(uint64_t n) PARTKV_EXCLUDES(clock_mu_);
  // The store's time for records that need no uniqueness (a table's creation time): the wall
  // clock, never below the last tick issued.
  int64_t NowTicks() const;
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
  port::Mutex& Stripe(size_t index) { return stripes_[index]; }
  static size_t StripeOf(uint64_t key_hash) { return key_hash % kLockStripes; }
  // The stripes a batch holds, released when destroyed. std::unique_lock, whose locking clang's
  // analysis does not follow; there is nothing in memory for it to check here: a stripe guards
  // rows in RocksDB, not fields.
  using RowLocks = std::vector<std::unique_lock<port::Mutex>>;
  // Locks the stripe of every full key in `keys`, each once, in ascending index order (batches
  // and bulk-write groups alike); the locks are released when the result is destroyed.
  RowLocks LockRows(const std::vector<std::string_view>& keys);

  // The shared data column families.
  const std::vector<rocksdb::ColumnFamilyHandle*>& data_column_families() const { return data_; }
  // The column family of every table's change feed entries.
  rocksdb::ColumnFamilyHandle* feed_column_family() const { return feed_; }
  // Every column family that holds keys of tables: the data ones, then the feed's.
  std::vector<rocksdb::ColumnFamilyHandle*> table_column_families() const {
    std::vector<rocksdb::ColumnFamilyHandle*> cfs = data_;
    cfs.push_back(feed_);
    return cfs;
  }

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
  // The options of the feed column family (docs/design.md "Change feeds").
  rocksdb::ColumnFamilyOptions FeedOptions() const { return feed_options_; }

  // The physical partitions of `record` in this store's data column families.
  std::vector<PhysicalPartition> PartitionsOf(const TableRecord& record) const;

 private:
  friend Status MigrateFormat1(
      StoreState* store,
      const std::vector<std::pair<std::string, rocksdb::ColumnFamilyHandle*>>& format1);
  friend Status MigrateFormat3(StoreState* store);
  StoreState() = default;

  // The steps of Open, in order.
  // What `options` set before the database opens: the store's defaults for tables, the data
  // column families' options (over `table_factory`), the scan threads.
  void Configure(const std::string& path, const StoreOptions& options,
                 std::shared_ptr<rocksdb::TableFactory> table_factory);
  // The database's options; `create`: the database does not exist yet.
  rocksdb::DBOptions DatabaseOptions(const std::string& path, bool create,
                                     std::shared_ptr<rocksdb::WriteBufferManager> wbm) const;
  // Takes the handles of `meta`, the default and the data column families from *handles (the
  // database's, in the order of `names`), leaving null in their places. Returns the format-1
  // column families found: name -> index in *handles.
  std::map<std::string, size_t> AdoptHandles(const std::vector<std::string>& names,
                                             std::vector<rocksdb::ColumnFamilyHandle*>* handles);
  // A new database's column families and meta keys, then `creation` committed.
  Status InitializeNewStore(const std::string& path, const rocksdb::ColumnFamilyOptions& meta_cf,
                            StoreCreation* creation);
  // Reads the format version: migrates a store of format 1 (MigrateFormat1), refuses one this
  // build does not know.
  Status CheckFormat(const std::string& path, const std::map<std::string, size_t>& format1,
                     const std::vector<rocksdb::ColumnFamilyHandle*>& handles);
  // Drops format 1's column families, left when a migration ended before dropping them: every
  // entity they hold was copied before the format key said 2.
  Status DropFormat1(const std::map<std::string, size_t>& format1,
                     std::vector<rocksdb::ColumnFamilyHandle*>* handles);
  // Corruption unless the store has every data column family its meta key counts (`data_found`:
  // the count the database listed, for the message).
  Status CheckDataColumnFamilies(const std::string& path, uint32_t data_found) const;
  // Reads the secret, the clock's reserved mark and the next table id, then the catalog.
  Status LoadMeta() PARTKV_EXCLUDES(catalog_mu_);
  Status LoadCatalog() PARTKV_REQUIRES(catalog_mu_);
  // Creates the data column families d0..d<count-1> that are missing.
  Status CreateDataColumnFamilies(uint32_t count);
  // Creates the feed column family unless the store has it.
  Status CreateFeedColumnFamily();
  Status ReserveTicks(int64_t needed) PARTKV_REQUIRES(clock_mu_);
  // The change feed of `record`'s table: its position kept and next number, read from disk.
  Result<std::unique_ptr<ChangeFeed>> LoadFeed(const TableRecord& record) const;
  // Whether the maintenance thread has work in `table` (a feed or a time to live).
  static bool NeedsMaintenance(const SharedTable& table);
  // Starts the maintenance thread (StoreOptions::maintenance_interval) unless it runs or is off.
  void StartMaintenance() PARTKV_EXCLUDES(maintenance_mu_);
  void StopMaintenance() PARTKV_EXCLUDES(maintenance_mu_);
  void MaintenanceLoop() PARTKV_EXCLUDES(maintenance_mu_);
  // The table object of `record`, complete before anything else can see it: its partitions in
  // this store, its key schemes, and its profile and throttling (its own, else the store's).
  // Corruption when the record names a profile this build does not know.
  Result<std::shared_ptr<SharedTable>> NewSharedTable(TableRecord record,
                                                      std::optional<KeyStrategy> pk_scheme,
                                                      std::optional<KeyStrategy> rk_scheme) const;

  std::string path_;
  std::string secret_;
  rocksdb::ColumnFamilyOptions partition_options_;
  rocksdb::ColumnFamilyOptions feed_options_;
  size_t memory_budget_ = 0;
  std::chrono::milliseconds write_stall_timeout_{60'000};
  std::string default_profile_;
  bool default_throttling_ = false;
  std::shared_ptr<Clock> clock_source_;
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* meta_ = nullptr;  // owned; destroyed in ~StoreState
  rocksdb::ColumnFamilyHandle* default_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> data_;  // owned; "d0", "d1", ...
  rocksdb::ColumnFamilyHandle* feed_ = nullptr;     // owned; "feed"

  // Lock order. The store's own locks are never held two at a time today: the catalog's writers
  // take no row lock, row writes never look at the catalog, and writes issue their ticks before
  // they lock rows. Should two ever be needed together, they are taken in this order: catalog_mu_,
  // then row stripes (in ascending index order, LockRows), then clock_mu_. clang checks the
  // catalog's and the clock's places in it (-Wthread-safety-beta); the stripes are an array,
  // which its lock-order attributes cannot name, so their place is this comment's. The locks
  // taken under these (the resume cache's, the recovery watch's, the dropped tables', a table's
  // access policies' and statistics') are leaves: nothing is locked while one is held.

  // Guards the catalog, and makes its changes (each a synced write to `meta`) one at a time.
  mutable port::Mutex catalog_mu_ PARTKV_ACQUIRED_BEFORE(clock_mu_);
  std::map<std::string, std::shared_ptr<SharedTable>> tables_  // by lower-cased name
      PARTKV_GUARDED_BY(catalog_mu_);
  uint32_t next_table_id_ PARTKV_GUARDED_BY(catalog_mu_) = 1;

  // Makes the reservations of ticks (ReserveTicks) one at a time. The two atomics are read
  // without it; once the store is open, ticks_limit_ is written only under it.
  port::Mutex clock_mu_;
  std::atomic<int64_t> last_ticks_{0};   // the last tick issued
  std::atomic<int64_t> ticks_limit_{0};  // ticks below this are reserved on disk
  std::array<port::Mutex, kLockStripes> stripes_;
  mutable ResumeCache resume_cache_;
  std::shared_ptr<DroppedTables> dropped_ = std::make_shared<DroppedTables>();
  std::shared_ptr<RecoveryWatch> recovery_ = std::make_shared<RecoveryWatch>();
  std::function<int64_t()> clock_;  // null: the system clock
  size_t scan_threads_ = 1;
  // Idle whenever no query runs (every query holds the store), so it may stop in any order.
  std::unique_ptr<WorkerPool> scan_pool_;
  std::shared_ptr<ScanMerge::SpareLanes> spare_lanes_ = std::make_shared<ScanMerge::SpareLanes>();

  // The maintenance thread: sweeps the tables with a feed or a time to live every
  // maintenance_interval_ (Table::Sweep). A leaf lock; the sweeps run without it.
  std::chrono::milliseconds maintenance_interval_{60'000};
  port::Mutex maintenance_mu_;
  port::CondVar maintenance_cv_{&maintenance_mu_};
  bool maintenance_stop_ PARTKV_GUARDED_BY(maintenance_mu_) = false;
  std::thread maintenance_ PARTKV_GUARDED_BY(maintenance_mu_);
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_STORE_STATE_H_
