#include "engine/local/partition_reader.h"

#include "engine/key_codec.h"
#include "engine/key_range.h"
#include "engine/local/rocks_status.h"
#include "engine/value_codec.h"
#include "rocksdb/snapshot.h"

namespace partkv::engine {

Result<std::shared_ptr<TableSnapshot>> TableSnapshot::Take(const TableHandle& table) {
  PARTKV_RETURN_IF_ERROR(table.CheckLive());
  rocksdb::DB* db = table.store().db();
  const Expiry expiry = table.data().ExpiryAt(table.store().NowTicks());
  return std::shared_ptr<TableSnapshot>(new TableSnapshot(table, db->GetSnapshot(), expiry));
}

TableSnapshot::~TableSnapshot() { table_.store().db()->ReleaseSnapshot(snapshot_); }

uint32_t TableSnapshot::partitions() const {
  return static_cast<uint32_t>(table_.data().partitions().size());
}

uint64_t TableSnapshot::ApproximateBytes(uint32_t index) const {
  const PhysicalPartition& partition = table_.data().partitions()[index];
  const std::string begin = partition.prefix, end = PrefixEnd(partition.prefix);
  const rocksdb::Range range{rocksdb::Slice(begin), rocksdb::Slice(end)};
  rocksdb::SizeApproximationOptions sizes;
  sizes.include_files = true;
  sizes.include_memtables = true;
  uint64_t bytes = 0;
  if (!table_.store().db()->GetApproximateSizes(sizes, partition.cf, &range, 1, &bytes).ok()) {
    return 0;
  }
  return bytes;
}

PartitionReader::PartitionReader(std::shared_ptr<const TableSnapshot> snapshot, uint32_t index,
                                 const std::optional<std::pair<std::string, std::string>>& after)
    : snapshot_(std::move(snapshot)), index_(index), after_(after) {
  const PhysicalPartition& partition = snapshot_->table().data().partitions()[index_];
  lower_ = partition.prefix;
  upper_ = PrefixEnd(partition.prefix);
  lower_slice_ = rocksdb::Slice(lower_);
  upper_slice_ = rocksdb::Slice(upper_);
  rocksdb::ReadOptions options;
  options.snapshot = snapshot_->snapshot();
  options.fill_cache = false;
  options.readahead_size = 2u << 20;
  options.iterate_lower_bound = &lower_slice_;
  options.iterate_upper_bound = &upper_slice_;
  it_.reset(snapshot_->table().store().db()->NewIterator(options, partition.cf));
}

Status PartitionReader::Next(size_t max_rows, size_t max_bytes, std::vector<Entity>* out) {
  const std::string where = "copy of table '" + snapshot_->table().data().record().name +
                            "', physical partition " + std::to_string(index_);
  if (!started_) {
    started_ = true;
    if (after_.has_value()) {
      std::string key = lower_;
      AppendEntityKey(after_->first, after_->second, &key);
      it_->Seek(key);
      if (it_->Valid() && it_->key() == rocksdb::Slice(key)) it_->Next();
    } else {
      it_->SeekToFirst();
    }
  } else if (it_->Valid()) {
    it_->Next();
  }
  size_t n = 0, bytes = 0;
  // The iterator rests on the last row returned, so that the next call starts after it.
  for (; it_->Valid(); it_->Next()) {
    const std::string_view key = it_->key().ToStringView().substr(lower_.size());
    const std::string_view value = it_->value().ToStringView();
    if (snapshot_->expiry().on() && snapshot_->expiry().ExpiredValue(value)) continue;
    if (out->size() <= n) out->emplace_back();
    Status s = DecodeEntity(key, PartitionPrefixLength(key), value, &(*out)[n]);
    if (!s.ok()) return s.WithContext(where);
    ++n;
    bytes += key.size() + value.size();
    if (n >= max_rows || bytes >= max_bytes) break;
  }
  out->resize(n);
  bytes_read_ += bytes;
  if (n == 0) return FromRocks(it_->status(), where);
  return Status::OK();
}

}  // namespace partkv::engine
