// What a store can do, by the backend behind it: the local engine (a directory) or a remote Azure
// Table endpoint (a connection string; docs/remote.md). Store::capabilities() reports it.
//
// A call that needs a capability the store lacks fails with InvalidArgument naming the
// capability ("… needs the 'descending-scans' capability, which a remote store lacks"); it never
// returns a silently different answer. The exceptions, documented at the call, are the calls
// without an error channel: Table::Statistics (a remote store counts what its own client sent)
// and Table::PhysicalPartitionOf (0 on a remote store, whose info() has no physical partitions).

#ifndef PARTKV_CAPABILITIES_H_
#define PARTKV_CAPABILITIES_H_

#include <string>

#pragma GCC visibility push(default)
namespace partkv {

struct StoreCapabilities {
  std::string backend;  // "local" or "remote"

  // Query::descending ('descending-scans'): Azure returns every query in ascending key order.
  bool descending_scans = false;
  // Queries return rows in (PartitionKey, RowKey) order ('ordered-scans'), which
  // Table::QueryShards' merge needs. Azure Table Storage sorts; Cosmos DB for Table does not (a
  // remote store on a Cosmos DB endpoint lacks it, and refuses QueryShards rather than merge
  // unsorted shards).
  bool ordered_scans = false;
  // Query::scan_budget, scan_time_budget and page_bytes are honoured ('scan-budget'); a remote
  // service bounds pages by its own rules.
  bool scan_budget = false;
  // TableOptions' key schemes kept with the table ('key-scheme-catalog'). Without it the schemes
  // are given to Store::OpenTable (OpenTableOptions) each time a table is opened.
  bool key_scheme_catalog = false;
  // TableOptions::physical_partitions, TableInfo::physical_partitions, Table::PhysicalPartitionOf
  // ('physical-partitions').
  bool physical_partitions = false;
  // Per-partition throughput budgets emulated from the cloud profile (StoreOptions::throttling,
  // TableOptions::throttling, TableOptions::profile) ('throttling-emulation'). A remote store is
  // throttled by the service itself and reports it as Throttled.
  bool throttling_emulation = false;
  // Table::Census ('census'): counts the stored rows of every physical partition.
  bool census = false;
  // Table::Statistics counts what the engine served ('engine-statistics'); without it, what this
  // store's client sent and was answered.
  bool engine_statistics = false;
  // Store::Flush, AwaitBackgroundWork and AwaitWritable act on a storage engine ('storage-engine');
  // on a remote store they return OK at once (an acknowledged write is already durable there).
  bool storage_engine = false;
  // Table::AccessPolicies / SetAccessPolicies ('access-policies').
  bool access_policies = false;
  // Store::ServiceProperties / SetServiceProperties ('service-properties').
  bool service_properties = false;
  // TableOptions::change_feed, Table::ReadChanges, FeedState, AwaitChanges ('change-feed').
  bool change_feed = false;
  // TableOptions::ttl_seconds and the "ttl" property, Table::Sweep ('time-to-live').
  bool time_to_live = false;
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_CAPABILITIES_H_
