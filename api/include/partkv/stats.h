// partkv::TableStats — what a table has served since the store was opened: operations, bytes and
// throttled calls per physical partition, and the hottest logical partitions (PartitionKeys) as
// found by a bounded top-k sketch (space-saving), so a hot-partition design shows itself locally.
//
// Counters live in memory and start at zero when the store opens. `operations` of a hot partition
// is an upper bound whose overestimate is at most `error`.

#ifndef PARTKV_STATS_H_
#define PARTKV_STATS_H_

#include <cstdint>
#include <string>
#include <vector>

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

struct PartitionStats {
  uint32_t index = 0;   // physical partition
  uint64_t reads = 0;   // entities read (point reads and entities examined by queries)
  uint64_t writes = 0;  // entities written or deleted
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  uint64_t throttled = 0;  // calls refused with Throttled; a remote table: 503/429 answers
  // A remote table: time spent waiting before retrying its requests (back-off and the service's
  // retry-after), in microseconds; 0 for a local table.
  uint64_t retry_wait_micros = 0;
};

struct HotPartition {
  std::string partition_key;
  uint64_t operations = 0;  // reads + writes counted for it (an upper bound)
  uint64_t error = 0;       // how much `operations` may overstate
};

struct TableStats {
  std::vector<PartitionStats> partitions;  // one per physical partition
  PartitionStats total;
  std::vector<HotPartition> hottest;  // most operations first
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_STATS_H_
