// What the comparison measures below the partkv API: the raw RocksDB baseline, and the on-disk
// facts of a table read from its census (Table::Census: SST bytes, entities per physical
// partition, the LSM shape).
//
// The raw database is configured like the store it is compared with: the options of the store's
// data column families as RocksDB recorded them in the store's OPTIONS file (the approach of the
// store benchmark, without reaching into the store), a fresh block cache of the store's memory
// budget and a write-buffer manager of half of it, and one column family per physical partition.
// The store's compaction filter (of dropped tables) is partkv's own and is left out. The raw
// database receives the exact key and value bytes partkv writes (partkv/stored_entity.h), in the
// same batches, routed to the same partition index (Table::PhysicalPartitionOf).
//
// Not thread-safe; one thread drives a RawDb.

#ifndef PARTKV_TOOLS_BENCH_DISK_H_
#define PARTKV_TOOLS_BENCH_DISK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "partkv/census.h"
#include "partkv/options.h"
#include "partkv/result.h"
#include "partkv/status.h"
#include "partkv/store.h"
#include "partkv/stored_entity.h"

namespace partkv::compare {

class RawDb {
 public:
  // Creates a database in `path` (which must not exist) configured like `store`, opened with
  // `store_options`, with `partitions` partition column families. InvalidArgument when the
  // store's OPTIONS file holds no data column family.
  static Result<std::unique_ptr<RawDb>> Create(const std::string& path, const Store& store,
                                               uint32_t partitions,
                                               const StoreOptions& store_options = {});
  ~RawDb();
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  // Writes `writes` into partition `partition` as one WriteBatch (what a raw caller of RocksDB
  // pays for a batch: building the WriteBatch and DB::Write).
  Status WriteBatch(size_t partition, const std::vector<StoredEntity>& writes);
  // Flushes every column family and waits until no flush or compaction is pending or running.
  Status FlushAndSettle();
  // Bytes of live SST files over the partition column families.
  uint64_t SstBytes() const;

 private:
  RawDb() = default;
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

// Entities stored in each physical partition, by index.
std::vector<uint64_t> EntitiesPerPartition(const TableCensus& census);

// "L0 3, L1 2 SST files" (or "no SST files") over the column families holding the table.
std::string LsmShape(const TableCensus& census);

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_DISK_H_
