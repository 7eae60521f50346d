// SharedTable: the one engine object per table — its catalog record, its physical partitions
// (each a hash range of PartitionKeys stored under a key prefix in one of the store's shared data
// column families), its statistics and throttling. Owned by StoreState's catalog and shared by
// every TableHandle (the per-handle object, engine/local/table_handle.h). It owns no RocksDB handle: the data column families belong to StoreState, which
// outlives every SharedTable reference holder. A table costs its catalog record, this object and
// a few dozen bytes per physical partition, so a store holds many thousands.

#ifndef PARTKV_ENGINE_LOCAL_SHARED_TABLE_H_
#define PARTKV_ENGINE_LOCAL_SHARED_TABLE_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/local/catalog.h"
#include "engine/profile_spec.h"
#include "engine/stats.h"
#include "engine/local/throttle.h"
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
  SharedTable(TableRecord record, std::vector<PhysicalPartition> partitions);
  SharedTable(const SharedTable&) = delete;
  SharedTable& operator=(const SharedTable&) = delete;

  const TableRecord& record() const { return record_; }
  const std::vector<PhysicalPartition>& partitions() const { return partitions_; }
  const Limits& limits() const { return profile_.limits; }
  const ProfileSpec& profile() const { return profile_; }
  // Null when throttling emulation is off for this table.
  Throttler* throttler() const { return throttler_.get(); }
  TableStatsCollector& stats() const { return *stats_; }
  void Configure(ProfileSpec profile, std::unique_ptr<Throttler> throttler) {
    profile_ = std::move(profile);
    throttler_ = std::move(throttler);
  }

  // The physical partition owning PartitionKey `pk` (by its XXH3 hash).
  size_t PartitionIndexOf(std::string_view pk) const;
  size_t PartitionIndexOfHash(uint64_t hash) const;

  // The table's key scheme (TableOptions), parsed from the catalog record.
  const std::optional<KeyStrategy>& partition_key_scheme() const { return pk_scheme_; }
  const std::optional<KeyStrategy>& row_key_scheme() const { return rk_scheme_; }
  void set_schemes(std::optional<KeyStrategy> pk, std::optional<KeyStrategy> rk) {
    pk_scheme_ = std::move(pk);
    rk_scheme_ = std::move(rk);
  }

  // The stored access policies (StoreState::SetAccessPolicies changes them).
  std::vector<AccessPolicy> access_policies() const {
    std::lock_guard<std::mutex> lock(acl_mu_);
    return acl_;
  }
  void set_access_policies(std::vector<AccessPolicy> policies) {
    std::lock_guard<std::mutex> lock(acl_mu_);
    acl_ = std::move(policies);
  }

  bool dropped() const { return dropped_.load(std::memory_order_acquire); }
  void MarkDropped() { dropped_.store(true, std::memory_order_release); }

 private:
  TableRecord record_;
  std::vector<PhysicalPartition> partitions_;
  ProfileSpec profile_{"azure-table", Limits::AzureTable(), {}};
  std::unique_ptr<Throttler> throttler_;
  std::unique_ptr<TableStatsCollector> stats_;
  std::atomic<bool> dropped_{false};
  std::optional<KeyStrategy> pk_scheme_, rk_scheme_;
  mutable std::mutex acl_mu_;
  std::vector<AccessPolicy> acl_;
};

uint64_t HashPartitionKey(std::string_view pk);
uint64_t HashBytes(std::string_view bytes);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_SHARED_TABLE_H_
