#include "engine/local/migration.h"

#include <algorithm>
#include <map>

#include "engine/local/catalog.h"
#include "engine/local/change_feed.h"
#include "engine/local/rocks_status.h"
#include "engine/local/row_sealer.h"
#include "engine/local/store_state.h"
#include "engine/value_codec.h"
#include "rocksdb/write_batch.h"

namespace partkv::engine {
namespace {

// Bytes of copied entities per write batch: large enough to amortise each write, small enough to
// keep the migration's memory flat.
constexpr size_t kCopyBatchBytes = 4u << 20;

size_t VarintLength(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

}  // namespace

Status MigrateFormat1(
    StoreState* store,
    const std::vector<std::pair<std::string, rocksdb::ColumnFamilyHandle*>>& format1) {
  rocksdb::DB* db = store->db_.get();
  PARTKV_RETURN_IF_ERROR(store->CreateDataColumnFamilies(kDefaultDataColumnFamilies));
  std::map<std::string, rocksdb::ColumnFamilyHandle*> old(format1.begin(), format1.end());

  int64_t max_ticks = 0;
  rocksdb::WriteBatch wb;
  auto flush_batch = [&]() -> Status {
    if (wb.Count() == 0) return Status::OK();
    rocksdb::Status s = db->Write(rocksdb::WriteOptions(), &wb);
    wb.Clear();
    return FromRocks(s, "copy entities");
  };
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), store->meta_));
  for (it->Seek(kTablePrefix); it->Valid() && it->key().starts_with(kTablePrefix); it->Next()) {
    PARTKV_ASSIGN_OR_RETURN(TableRecord record, DecodeTableRecord(it->value().ToStringView()));
    const std::vector<PhysicalPartition> parts = store->PartitionsOf(record);
    for (uint32_t i = 0; i < parts.size(); ++i) {
      const std::string name = PartitionColumnFamilyName(record.id, i);
      auto found = old.find(name);
      if (found == old.end()) {
        return Status::Corruption("table '" + record.name + "' lacks its column family " + name);
      }
      rocksdb::ReadOptions ro;
      ro.fill_cache = false;  // read once
      std::unique_ptr<rocksdb::Iterator> rows(db->NewIterator(ro, found->second));
      std::string key, value;
      for (rows->SeekToFirst(); rows->Valid(); rows->Next()) {
        const std::string_view stored = rows->value().ToStringView();
        ValueHeader h;
        PARTKV_RETURN_IF_ERROR(
            DecodeValueHeader(stored, &h)
                .WithContext("table '" + record.name + "', column family " + name));
        // version byte, fixed64 timestamp, varint ETag version: then the properties, unchanged.
        const size_t header = 1 + 8 + VarintLength(h.etag_version);
        max_ticks = std::max(max_ticks, h.timestamp_ticks);
        key = parts[i].prefix;
        key.append(rows->key().data(), rows->key().size());
        value.clear();
        AppendValueHeader(ValueHeader{h.timestamp_ticks, static_cast<uint64_t>(h.timestamp_ticks)},
                          &value);
        value.append(stored.substr(header));
        rocksdb::Status s = wb.Put(parts[i].cf, key, value);
        if (!s.ok()) return FromRocks(s, "copy entities");
        if (wb.GetDataSize() >= kCopyBatchBytes) PARTKV_RETURN_IF_ERROR(flush_batch());
      }
      if (!rows->status().ok()) return FromRocks(rows->status(), "read column family " + name);
    }
  }
  if (!it->status().ok()) return FromRocks(it->status(), "read catalog");
  PARTKV_RETURN_IF_ERROR(flush_batch());

  // The switch, in one synced write (which also makes every copy above durable: they precede it
  // in the write-ahead log). Ticks issued from now on lie above every copied Timestamp, so no
  // entity's ETag repeats.
  wb.Put(store->meta_, kFormatKey, std::to_string(kStoreFormatVersion));
  wb.Put(store->meta_, kDataColumnFamiliesKey, std::to_string(kDefaultDataColumnFamilies));
  wb.Put(store->meta_, kClockReservedKey, std::to_string(max_ticks + 1));
  wb.Delete(store->meta_, kEtagReservedKey);
  rocksdb::WriteOptions wo;
  wo.sync = true;
  return FromRocks(db->Write(wo, &wb), "switch the store to format 2");
}

Status MigrateFormat3(StoreState* store) {
  rocksdb::DB* db = store->db_.get();
  const auto count = static_cast<uint32_t>(store->data_.size());
  rocksdb::WriteBatch wb;
  auto flush_batch = [&]() -> Status {
    if (wb.Count() == 0) return Status::OK();
    rocksdb::Status s = db->Write(rocksdb::WriteOptions(), &wb);
    wb.Clear();
    return FromRocks(s, "move change feed entries");
  };
  // The ranges the switch deletes: each feed table's entries in its partition 0's column family.
  struct Moved {
    rocksdb::ColumnFamilyHandle* cf;
    std::string begin, end;
  };
  std::vector<Moved> moved;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), store->meta_));
  for (it->Seek(kTablePrefix); it->Valid() && it->key().starts_with(kTablePrefix); it->Next()) {
    PARTKV_ASSIGN_OR_RETURN(TableRecord record, DecodeTableRecord(it->value().ToStringView()));
    if (!record.feed_set) continue;
    Moved m{store->data_[DataColumnFamilyOf(record.id, 0, count)], FeedKey(record.id, 0),
            PartitionKeyPrefix(record.id + 1, 0)};
    const rocksdb::Slice lower(m.begin), upper(m.end);
    rocksdb::ReadOptions ro;
    ro.fill_cache = false;  // read once
    ro.iterate_lower_bound = &lower;
    ro.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> entries(db->NewIterator(ro, m.cf));
    for (entries->SeekToFirst(); entries->Valid(); entries->Next()) {
      rocksdb::Status s = wb.Put(store->feed_, entries->key(), entries->value());
      if (!s.ok()) return FromRocks(s, "move change feed entries");
      if (wb.GetDataSize() >= kCopyBatchBytes) PARTKV_RETURN_IF_ERROR(flush_batch());
    }
    if (!entries->status().ok()) {
      return FromRocks(entries->status(), "read the change feed of table '" + record.name + "'");
    }
    moved.push_back(std::move(m));
  }
  if (!it->status().ok()) return FromRocks(it->status(), "read catalog");
  PARTKV_RETURN_IF_ERROR(flush_batch());

  // The switch, in one synced write, after every copy in the write-ahead log.
  for (const Moved& m : moved) {
    rocksdb::Status s = wb.DeleteRange(m.cf, m.begin, m.end);
    if (!s.ok()) return FromRocks(s, "move change feed entries");
  }
  wb.Put(store->meta_, kFormatKey, std::to_string(kStoreFormatVersion));
  rocksdb::WriteOptions wo;
  wo.sync = true;
  return FromRocks(db->Write(wo, &wb),
                   "switch the store to format " + std::to_string(kStoreFormatVersion));
}

}  // namespace partkv::engine
