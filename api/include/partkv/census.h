// partkv::TableCensus — what a table stores, counted: entities, bytes and logical partitions
// (distinct PartitionKeys) per physical partition, the largest logical partitions, and the
// table's footprint in the store's SST files. Table::Census (partkv/table.h) takes one;
// `partkv stats` prints it (docs/cli.md "Statistics").
//
// A census counts what is stored, at one moment. TableStats (partkv/stats.h) counts something
// else: what the table has served since the store opened.
//
// Plain values; a TableCensus owns everything it holds.

#ifndef PARTKV_CENSUS_H_
#define PARTKV_CENSUS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

struct CensusOptions {
  // What makes a logical partition large: its entities or its bytes. Ties go to the smaller
  // PartitionKey (byte order), so a census of the same data always lists the same keys.
  enum class RankBy : uint8_t { kEntities, kBytes };

  // How many of the largest logical partitions TableCensus::largest holds; 0 for none. The scan
  // keeps only these, so the census's memory does not grow with the table.
  size_t top = 10;
  RankBy rank_by = RankBy::kEntities;
};

// One physical partition: one range of the 64-bit XXH3 hash space of PartitionKeys, stored as
// one key range of a shared column family (docs/format.md "Physical partitions").
struct PartitionCensus {
  uint32_t index = 0;
  // The hash range owned, both ends inclusive: a PartitionKey whose XXH3 hash h satisfies
  // hash_lower <= h <= hash_upper lives here (Table::PhysicalPartitionOf).
  uint64_t hash_lower = 0;
  uint64_t hash_upper = 0;
  uint64_t entities = 0;
  // Encoded keys (without the partition's 6-byte prefix) and encoded values of its entities, as
  // docs/format.md "Entity keys" and "Entity values" define them: the rows before compression.
  uint64_t bytes = 0;
  uint64_t logical_partitions = 0;  // distinct PartitionKeys
  // RocksDB's estimate of what the partition's key range takes in SST files (compressed; what
  // is still in memtables is not counted, so 0 before the first flush).
  uint64_t sst_bytes = 0;
};

// One logical partition (PartitionKey) among the largest.
struct LogicalPartitionCensus {
  std::string partition_key;
  uint32_t physical_partition = 0;
  uint64_t entities = 0;
  uint64_t bytes = 0;  // as PartitionCensus::bytes
};

struct TableCensus {
  std::string table;  // the table's name, as created
  // Sums over `partitions`.
  uint64_t entities = 0;
  uint64_t bytes = 0;
  uint64_t logical_partitions = 0;
  uint64_t sst_bytes = 0;
  // Entities whose time to live ran out (partkv/changes.h), still stored until the background
  // reclaims them: counted here only, not in `entities`, `bytes` or `partitions`.
  uint64_t expired_entities = 0;
  std::vector<PartitionCensus> partitions;  // one per physical partition, by index
  // At most CensusOptions::top, largest first (by CensusOptions::rank_by).
  std::vector<LogicalPartitionCensus> largest;
  // SST files per LSM level (index = level, up to the deepest level holding a file; empty when
  // none) of the column families holding the table's partitions. Those column families are
  // shared by every table of the store, so this is the shape the table's reads go through, other
  // tables' files included.
  std::vector<uint64_t> sst_files_per_level;
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_CENSUS_H_
