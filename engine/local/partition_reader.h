// PartitionReader: reads a local table's physical partitions whole, in key order, from one
// snapshot, for a copy of the table (partkv/copy.h): every partition of one TableSnapshot sees the
// table as it was when the snapshot was taken, whatever is written meanwhile.
//
// A reader decodes the rows of one physical partition in chunks, starting after a given
// (PartitionKey, RowKey) when a resumed copy asks it to, with a bounded iterator that does not
// fill the block cache (a copy reads everything once; the hot set of other readers stays).
//
// Thread-safety: a TableSnapshot may be shared by any number of readers on any threads; a
// PartitionReader is used by one thread at a time.

#ifndef PARTKV_ENGINE_LOCAL_PARTITION_READER_H_
#define PARTKV_ENGINE_LOCAL_PARTITION_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/local/table_handle.h"
#include "partkv/entity.h"
#include "partkv/result.h"
#include "rocksdb/db.h"

namespace partkv::engine {

class TableSnapshot {
 public:
  // A snapshot of the store behind `table`. NotFound when the table has been dropped.
  static Result<std::shared_ptr<TableSnapshot>> Take(const TableHandle& table);
  ~TableSnapshot();
  TableSnapshot(const TableSnapshot&) = delete;
  TableSnapshot& operator=(const TableSnapshot&) = delete;

  uint32_t partitions() const;
  // RocksDB's estimate of the bytes physical partition `index` stores (SST files and memtables).
  uint64_t ApproximateBytes(uint32_t index) const;

  const TableHandle& table() const { return table_; }
  const rocksdb::Snapshot* snapshot() const { return snapshot_; }

 private:
  TableSnapshot(const TableHandle& table, const rocksdb::Snapshot* snapshot, Expiry expiry)
      : table_(table), snapshot_(snapshot), expiry_(expiry) {}
  TableHandle table_;  // keeps the store and the table alive
  const rocksdb::Snapshot* snapshot_;
  const Expiry expiry_;  // entities expired when the snapshot was taken are left out

 public:
  const Expiry& expiry() const { return expiry_; }
};

class PartitionReader {
 public:
  // Reads physical partition `index` of `snapshot`'s table: every row after (PartitionKey,
  // RowKey) `after` when it is given, else every row. REQUIRES: index < snapshot->partitions().
  PartitionReader(std::shared_ptr<const TableSnapshot> snapshot, uint32_t index,
                  const std::optional<std::pair<std::string, std::string>>& after);

  // Replaces *out with the next rows (at most `max_rows` and about `max_bytes` of stored bytes,
  // at least one row unless the partition is done), reusing the entities' storage. Returns OK
  // with an empty *out at the end. IOError naming the table and partition when reading fails;
  // Corruption for a malformed row.
  Status Next(size_t max_rows, size_t max_bytes, std::vector<Entity>* out);

  uint64_t bytes_read() const { return bytes_read_; }

 private:
  std::shared_ptr<const TableSnapshot> snapshot_;
  uint32_t index_;
  std::string lower_, upper_;  // full keys; RocksDB keeps pointers to the slices
  rocksdb::Slice lower_slice_, upper_slice_;
  std::unique_ptr<rocksdb::Iterator> it_;
  std::optional<std::pair<std::string, std::string>> after_;
  bool started_ = false;
  uint64_t bytes_read_ = 0;
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_PARTITION_READER_H_
