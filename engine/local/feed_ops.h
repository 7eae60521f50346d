// The operations on a table's change feed and its expiries (docs/changes.md): reading the feed
// (Table::ReadChanges, FeedState, AwaitChanges) and the sweep (Table::Sweep, and the store's
// maintenance thread) that applies retention and records expiries.
//
// Thread-safety: all functions are thread-safe; reads see one RocksDB snapshot each.

#ifndef PARTKV_ENGINE_LOCAL_FEED_OPS_H_
#define PARTKV_ENGINE_LOCAL_FEED_OPS_H_

#include <chrono>
#include <string_view>

#include "engine/local/shared_table.h"
#include "partkv/changes.h"
#include "partkv/result.h"

namespace partkv::engine {

class StoreState;

Result<ChangesPage> ReadChanges(StoreState& store, const SharedTable& table,
                                const ChangesQuery& query);
Result<ChangeFeedState> FeedState(StoreState& store, const SharedTable& table);
Result<bool> AwaitChanges(StoreState& store, const SharedTable& table,
                          std::string_view continuation, std::chrono::milliseconds timeout);
// Retention, then (for a table with a feed and a time to live) the expiries, a few hundred rows
// per atomic write.
Result<SweepReport> SweepTable(StoreState& store, SharedTable& table);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_FEED_OPS_H_
