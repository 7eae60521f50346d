// SharedTable: the one engine object per table — its catalog record, its physical partitions
// (each a hash range of PartitionKeys stored under a key prefix in one of the store's shared data
// column families), its statistics and throttling. Owned by StoreState's catalog and shared by
// every TableHandle (the per-handle object, engine/local/table_handle.h). It owns no RocksDB
// handle: the data column families belong to StoreState, which outlives every SharedTable
// reference holder. A table costs its catalog record, this object and a few dozen bytes per
// physical partition, so a store holds many thousands.
//
// Thread-safety: any thread may use a SharedTable once StoreState has published it (put it in its
// catalog, the only way to it for other threads). What it is made with is constant from then on
// and read without a lock (see its fields); the access policies change under acl_mu_, the
// statistics and the throttler lock inside, and the dropped mark is atomic.

#ifndef PARTKV_ENGINE_LOCAL_SHARED_TABLE_H_
#define PARTKV_ENGINE_LOCAL_SHARED_TABLE_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/local/catalog.h"
#include "engine/local/change_feed.h"
#include "engine/local/throttle.h"
#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "engine/profile_spec.h"
#include "engine/stats.h"
#include "engine/ttl.h"
#include "engine/validation.h"
#include "partkv/keys.h"
#include "rocksdb/db.h"

namespace partkv::engine {

struct PhysicalPartition {
  rocksdb::ColumnFamilyHandle* cf = nullptr;  // the shared data column family (not owned)
  uint64_t lower_bound = 0;                   // smallest XXH3 hash of a PartitionKey owned
  // PartitionKeyPrefix(table id, index): the first bytes of every key of the partition.
  std::string prefix;
};

class SharedTable {
 public:
  // `throttler`: null when throttling emulation is off for the table.
  SharedTable(TableRecord record, std::vector<PhysicalPartition> partitions,
              std::optional<KeyStrategy> pk_scheme, std::optional<KeyStrategy> rk_scheme,
              ProfileSpec profile, std::unique_ptr<Throttler> throttler,
              std::unique_ptr<ChangeFeed> feed);
  SharedTable(const SharedTable&) = delete;
  SharedTable& operator=(const SharedTable&) = delete;

  const TableRecord& record() const { return record_; }
  const std::vector<PhysicalPartition>& partitions() const { return partitions_; }
  const Limits& limits() const { return profile_.limits; }
  const ProfileSpec& profile() const { return profile_; }
  // Null when throttling emulation is off for this table.
  Throttler* throttler() const { return throttler_.get(); }
  TableStatsCollector& stats() const { return *stats_; }

  // The physical partition owning PartitionKey `pk` (by its XXH3 hash).
  size_t PartitionIndexOf(std::string_view pk) const;
  size_t PartitionIndexOfHash(uint64_t hash) const;

  // The table's key scheme (TableOptions), parsed from the catalog record.
  const std::optional<KeyStrategy>& partition_key_scheme() const { return pk_scheme_; }
  const std::optional<KeyStrategy>& row_key_scheme() const { return rk_scheme_; }

  // The stored access policies (StoreState::SetAccessPolicies changes them).
  std::vector<AccessPolicy> access_policies() const PARTKV_EXCLUDES(acl_mu_) {
    port::MutexLock lock(&acl_mu_);
    return acl_;
  }
  void set_access_policies(std::vector<AccessPolicy> policies) PARTKV_EXCLUDES(acl_mu_) {
    port::MutexLock lock(&acl_mu_);
    acl_ = std::move(policies);
  }

  // The change feed (engine/local/change_feed.h); present whether it is on or off.
  ChangeFeed& feed() const { return *feed_; }
  // The time to live in force (TableOptions::ttl_seconds; Store::SetTableOptions changes it).
  int64_t ttl_seconds() const { return ttl_seconds_.load(std::memory_order_acquire); }
  void set_ttl_seconds(int64_t ttl) { ttl_seconds_.store(ttl, std::memory_order_release); }
  // The expiry rule of a read at `now_ticks`.
  Expiry ExpiryAt(int64_t now_ticks) const { return Expiry{ttl_seconds(), now_ticks}; }
  // The record as it is now: the one made at creation with the settings that changed since.
  TableRecord CurrentRecord() const PARTKV_EXCLUDES(acl_mu_);

  bool dropped() const { return dropped_.load(std::memory_order_acquire); }
  void MarkDropped() { dropped_.store(true, std::memory_order_release); }

 private:
  // Constant after publication. Set by the constructor, before StoreState publishes the table
  // (puts it in its catalog under catalog_mu_, the only way to the table for any other thread),
  // and read from then on by any thread without a lock. const, so that no writer can appear
  // later: one would race every reader. (The objects the two pointers own lock inside.)
  const TableRecord record_;
  const std::vector<PhysicalPartition> partitions_;
  const std::optional<KeyStrategy> pk_scheme_, rk_scheme_;
  const ProfileSpec profile_;
  const std::unique_ptr<Throttler> throttler_;
  const std::unique_ptr<TableStatsCollector> stats_;
  const std::unique_ptr<ChangeFeed> feed_;
  std::atomic<int64_t> ttl_seconds_;

  std::atomic<bool> dropped_{false};
  mutable port::Mutex acl_mu_;
  std::vector<AccessPolicy> acl_ PARTKV_GUARDED_BY(acl_mu_);
};

uint64_t HashPartitionKey(std::string_view pk);
uint64_t HashBytes(std::string_view bytes);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_SHARED_TABLE_H_
