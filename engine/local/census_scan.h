// TakeCensus: the engine side of Table::Census (partkv/census.h) — a count of what one table
// stores, by reading every row of each physical partition's key range once.
//
// Keys within a partition's range sort by PartitionKey first, so a logical partition is one run
// of keys sharing a prefix: counting needs no memory per logical partition, only the `top`
// largest are kept (a bounded heap). Every partition is read from one snapshot, with a bounded
// iterator that does not fill the block cache. Key bytes are counted without the partition
// prefix, so the figures mean what they meant when every physical partition was a column family
// of its own (docs/design.md "What stays per table").
//
// Thread-safe: it only reads; the caller keeps `store` and `table` alive for the call.

#ifndef PARTKV_ENGINE_LOCAL_CENSUS_SCAN_H_
#define PARTKV_ENGINE_LOCAL_CENSUS_SCAN_H_

#include "engine/local/shared_table.h"
#include "engine/local/store_state.h"
#include "partkv/census.h"
#include "partkv/result.h"

namespace partkv::engine {

// IOError (FromRocks: naming the table and the partition) when a read fails; Corruption for a
// malformed stored key. A dropped table is the caller's to refuse (TableHandle::CheckLive).
Result<TableCensus> TakeCensus(const StoreState& store, const SharedTable& table,
                               const CensusOptions& options);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_CENSUS_SCAN_H_
