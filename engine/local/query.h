// Query execution: resolves a partkv::Query against a table (key conditions from the query and
// its filter become iterator bounds), reads one page from one snapshot through a merged stream of
// physical-partition cursors, and seals the resume point in a continuation token.
//
// Sharded reads merge the shards' PartitionKeys by RowKey through a ShardStream
// (engine/local/cursor_shards.h): one iterator per physical partition, shared by its shards.

#ifndef PARTKV_ENGINE_LOCAL_QUERY_H_
#define PARTKV_ENGINE_LOCAL_QUERY_H_

#include <string>
#include <vector>

#include "engine/local/shared_table.h"
#include "engine/local/store_state.h"
#include "partkv/query.h"

namespace partkv::engine {

// Whether a read of rows [lower, upper) of every physical partition of `table` (an empty upper: to
// the partition's end), or of `share` of them, is a bulk read, which reads past the block cache
// (and with readahead) so that it does not evict the hot working set: when their stored size is
// over half the store's memory budget (the block cache's capacity, half of it taken by memtables
// at most; blocks are compressed on disk, so such a range would fill what is left). A smaller
// read is cached: read again, it is read from memory. RocksDB's estimate from its files'
// indexes; what is still in memtables is not counted (it is in memory either way).
bool BulkRead(StoreState& store, const SharedTable& table, const std::string& lower,
              const std::string& upper, double share = 1.0);

// One page of `query` into *out, reusing its entities' storage (Table::QueryEntities).
Status RunQuery(StoreState& store, const SharedTable& table, const Query& query, Page* out);

// Reads the union of the given PartitionKeys (the shards of one logical key), merged by RowKey
// then PartitionKey, applying the query's RowKey range, filter, select, page size, order and
// token. REQUIRES: query.partition_key / partition ranges unset.
Status RunShardQuery(StoreState& store, const SharedTable& table,
                     const std::vector<std::string>& partition_keys, const Query& query, Page* out);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_QUERY_H_
