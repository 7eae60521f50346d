#include "engine/local/census_scan.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/key_codec.h"
#include "engine/key_range.h"
#include "engine/local/rocks_status.h"
#include "engine/ttl.h"
#include "rocksdb/db.h"
#include "rocksdb/metadata.h"
#include "rocksdb/snapshot.h"

namespace partkv::engine {
namespace {

// Orders logical partitions largest first by the census's measure, ties by the smaller key.
class Larger {
 public:
  explicit Larger(CensusOptions::RankBy by) : by_(by) {}
  bool operator()(const LogicalPartitionCensus& a, const LogicalPartitionCensus& b) const {
    const uint64_t x = by_ == CensusOptions::RankBy::kBytes ? a.bytes : a.entities;
    const uint64_t y = by_ == CensusOptions::RankBy::kBytes ? b.bytes : b.entities;
    return x != y ? x > y : a.partition_key < b.partition_key;
  }

 private:
  CensusOptions::RankBy by_;
};

// Keeps the `top` largest logical partitions offered.
class Largest {
 public:
  Largest(size_t top, CensusOptions::RankBy by) : top_(top), larger_(by) {}
  void Offer(LogicalPartitionCensus candidate) {
    if (top_ == 0) return;
    if (heap_.size() < top_) {
      heap_.push_back(std::move(candidate));
      std::push_heap(heap_.begin(), heap_.end(), larger_);
    } else if (larger_(candidate, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), larger_);
      heap_.back() = std::move(candidate);
      std::push_heap(heap_.begin(), heap_.end(), larger_);
    }
  }
  std::vector<LogicalPartitionCensus> Sorted() && {
    std::sort(heap_.begin(), heap_.end(), larger_);
    return std::move(heap_);
  }

 private:
  size_t top_;
  Larger larger_;
  std::vector<LogicalPartitionCensus> heap_;  // a heap whose front is the smallest kept
};

std::string Where(const SharedTable& table, size_t index) {
  return "census of table '" + table.record().name + "', physical partition " +
         std::to_string(index);
}

Status ScanPartition(rocksdb::DB* db, const rocksdb::Snapshot* snapshot, const SharedTable& table,
                     size_t index, const Expiry& expiry, PartitionCensus* out, Largest* largest,
                     uint64_t* expired) {
  const PhysicalPartition& partition = table.partitions()[index];
  rocksdb::ReadOptions options;
  options.snapshot = snapshot;
  options.fill_cache = false;
  options.readahead_size = 2u << 20;
  // The partition is the range of its prefix in a shared column family (docs/format.md). The
  // bounds are ours: RocksDB keeps only pointers to them.
  const std::string begin = partition.prefix, end = PrefixEnd(partition.prefix);
  const rocksdb::Slice begin_slice(begin), end_slice(end);
  options.iterate_lower_bound = &begin_slice;
  options.iterate_upper_bound = &end_slice;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(options, partition.cf));
  std::string prefix;  // escape(PartitionKey) 0x00 of the current logical partition
  LogicalPartitionCensus current;
  current.physical_partition = static_cast<uint32_t>(index);
  auto finish = [&] {
    if (current.entities > 0) largest->Offer(std::move(current));
    current = LogicalPartitionCensus();
    current.physical_partition = static_cast<uint32_t>(index);
  };
  std::string row_key;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view key = it->key().ToStringView().substr(begin.size());
    const size_t n = PartitionPrefixLength(key);
    if (n == 0) return Status::Corruption(Where(table, index) + ": a malformed key");
    if (expiry.on() && expiry.ExpiredValue(it->value().ToStringView())) {
      ++*expired;  // stored, not yet reclaimed: no entity
      continue;
    }
    if (current.entities == 0 || key.substr(0, n) != prefix) {
      finish();
      prefix.assign(key.data(), n);
      Status s = DecodeEntityKey(key, &current.partition_key, &row_key);
      if (!s.ok()) return s.WithContext(Where(table, index));
      ++out->logical_partitions;
    }
    const uint64_t bytes = key.size() + it->value().size();
    ++out->entities;
    out->bytes += bytes;
    ++current.entities;
    current.bytes += bytes;
  }
  finish();
  PARTKV_RETURN_IF_ERROR(FromRocks(it->status(), Where(table, index)));

  rocksdb::SizeApproximationOptions sizes;
  sizes.include_files = true;
  sizes.include_memtables = false;
  const rocksdb::Range range(begin_slice, end_slice);
  return FromRocks(db->GetApproximateSizes(sizes, partition.cf, &range, 1, &out->sst_bytes),
                   Where(table, index) + ": SST size estimate");
}

// SST files per level over the column families holding `table` (each counted once).
std::vector<uint64_t> FilesPerLevel(rocksdb::DB* db, const SharedTable& table) {
  std::vector<rocksdb::ColumnFamilyHandle*> cfs;
  for (const PhysicalPartition& p : table.partitions()) {
    if (std::find(cfs.begin(), cfs.end(), p.cf) == cfs.end()) cfs.push_back(p.cf);
  }
  std::vector<uint64_t> files;
  for (rocksdb::ColumnFamilyHandle* cf : cfs) {
    rocksdb::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(cf, &meta);
    for (const rocksdb::LevelMetaData& level : meta.levels) {
      if (level.files.empty()) continue;
      const size_t at = static_cast<size_t>(level.level);
      if (files.size() <= at) files.resize(at + 1);
      files[at] += level.files.size();
    }
  }
  return files;
}

}  // namespace

Result<TableCensus> TakeCensus(const StoreState& store, const SharedTable& table,
                               const CensusOptions& options) {
  rocksdb::DB* db = store.db();
  const auto& partitions = table.partitions();
  TableCensus census;
  census.table = table.record().name;
  census.partitions.resize(partitions.size());
  Largest largest(options.top, options.rank_by);
  {
    rocksdb::ManagedSnapshot snapshot(db);
    const Expiry expiry = table.ExpiryAt(store.NowTicks());
    for (size_t i = 0; i < partitions.size(); ++i) {
      PartitionCensus& p = census.partitions[i];
      p.index = static_cast<uint32_t>(i);
      p.hash_lower = partitions[i].lower_bound;
      p.hash_upper = i + 1 < partitions.size() ? partitions[i + 1].lower_bound - 1
                                               : std::numeric_limits<uint64_t>::max();
      PARTKV_RETURN_IF_ERROR(ScanPartition(db, snapshot.snapshot(), table, i, expiry, &p, &largest,
                                           &census.expired_entities));
      census.entities += p.entities;
      census.bytes += p.bytes;
      census.logical_partitions += p.logical_partitions;
      census.sst_bytes += p.sst_bytes;
    }
  }
  census.largest = std::move(largest).Sorted();
  census.sst_files_per_level = FilesPerLevel(db, table);
  return census;
}

}  // namespace partkv::engine
