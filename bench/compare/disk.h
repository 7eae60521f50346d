// What the comparison measures below the partkv API: the raw RocksDB baseline, and the on-disk
// facts of a table (bytes, entity counts per physical partition, quiet background work).
//
// The raw database is configured like the store it is compared with (the approach of
// bench/store_bench_fixture.cc): the store's own DB and partition column-family options, with a
// fresh block cache and write-buffer manager of the same sizes, and one column family per physical
// partition. It receives the exact key and value bytes partkv writes (engine/key_codec.h,
// engine/value_codec.h), in the same batches, routed to the same partition index.
//
// Not thread-safe; one thread drives a RawDb.

#ifndef PARTKV_BENCH_COMPARE_DISK_H_
#define PARTKV_BENCH_COMPARE_DISK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "partkv/status.h"
#include "partkv/store.h"
#include "partkv/table.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
}  // namespace rocksdb

namespace partkv::compare {

// One encoded write: the key and value bytes partkv stores for an entity.
struct RawWrite {
  std::string key;
  std::string value;
};

class RawDb {
 public:
  // Creates a database in `path` (which must not exist) configured like `store`, with
  // `partitions` partition column families.
  static Result<std::unique_ptr<RawDb>> Create(const std::string& path, const Store& store,
                                               uint32_t partitions);
  ~RawDb();
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  // Writes `writes` into partition `partition` as one WriteBatch (what a raw caller of RocksDB
  // pays for a batch: building the WriteBatch and DB::Write).
  Status WriteBatch(size_t partition, const std::vector<RawWrite>& writes);
  // Flushes every column family and waits until no flush or compaction is pending or running.
  Status FlushAndSettle();
  // Bytes of live SST files over the partition column families.
  uint64_t SstBytes() const;

 private:
  RawDb() = default;
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

// The encoded key and value of `entity` as a table writes them, with the given header.
RawWrite EncodeForRaw(const Entity& entity, int64_t timestamp_ticks, uint64_t etag_version);

// The physical partition of PartitionKey `pk` in `table`.
size_t PartitionIndexOf(const Table& table, std::string_view pk);

// Waits until the store has no pending or running flush or compaction (polls every 10 ms, for
// at most `max_seconds`); a bench needs a settled LSM tree before it measures reads and sizes.
// Returns false when the time ran out first.
bool WaitForQuiet(const Store& store, double max_seconds = 600);

// Bytes of live SST files of `table`'s physical partitions.
uint64_t TableSstBytes(const Store& store, const Table& table);

// Entities stored in each physical partition of `table`, counted by iterating its column
// families (no decoding).
std::vector<uint64_t> CountEntitiesOnDisk(const Store& store, const Table& table);

// "L0 3, L1 2 SST files" summed over the table's physical partitions.
std::string LsmShape(const Store& store, const Table& table);

}  // namespace partkv::compare

#endif  // PARTKV_BENCH_COMPARE_DISK_H_
