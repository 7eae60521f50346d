// Options for opening a store, creating tables and writing.
//
// All option structs are plain aggregates with defaults that match Azure Table's behaviour where
// it has one; the comment on each field says where a default comes from.

#ifndef PARTKV_OPTIONS_H_
#define PARTKV_OPTIONS_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "partkv/changes.h"
#include "partkv/clock.h"
#include "partkv/keys.h"

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

// How a remote store (Store::Open of a connection string; docs/remote.md) retries a request that
// failed for a reason a retry may cure: 503 ServerBusy, 429 (Cosmos DB), 500, 502, 504, 408, and
// connections that failed or dropped. Waits grow exponentially from `initial_backoff` to
// `max_backoff` with full jitter (a uniform draw in [wait/2, wait]); a server's
// x-ms-retry-after-ms or Retry-After is honoured when it asks for longer. A request is tried at
// most `max_attempts` times and not after `max_total` since its first try; then the last failure
// is returned (Throttled with the server's retry-after for 503/429, IOError otherwise).
struct RetryOptions {
  int max_attempts = 6;  // 1 = never retry
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{8'000};
  std::chrono::milliseconds max_total{60'000};
};

// The client of a remote store.
struct RemoteOptions {
  // A PEM file of the certificate authorities HTTPS trusts; empty = the system's CA store.
  std::string ca_file;
  std::chrono::milliseconds connect_timeout{10'000};
  // Per request (each attempt), from its first byte sent to the last byte of its response.
  std::chrono::milliseconds request_timeout{30'000};
  // HTTP/1.1 keep-alive connections to the endpoint, at most: also the bound on requests in
  // flight from this store (a request beyond waits for a connection).
  size_t max_connections = 16;
  // Requests one call may have in flight at once: Table::QueryShards' shards, GetByAttributes'
  // probes of a random-suffix key's shards.
  size_t fan_out = 8;
  // The memory of the responses being received at once, together, in bytes: every request in
  // flight charges the buffer its answer is read into as the bytes arrive, whatever the framing,
  // and an answer that would take the total past this fails (IOError naming the limit; it is
  // not retried). While a buffer grows its old copy lives for the copy, so the responses in
  // flight never hold more than 1.5 times this. One answer holds at most 256 MiB in any case.
  // A server that sends without end costs this much, not more (docs/remote.md "What the client
  // checks").
  size_t max_response_memory = 256u << 20;
  RetryOptions retry;
};

struct StoreOptions {
  // Create the store directory and an empty store when `path` holds none.
  bool create_if_missing = true;
  // Fail with AlreadyExists when `path` already holds a store.
  bool error_if_exists = false;
  // The one memory budget of the store, in bytes: the shared block cache plus the memtables of
  // its 16 shared column families (every table's partitions live in them). RocksDB's own fixed
  // overheads (table readers of open files) and a few hundred bytes per table for the catalog
  // come on top. Split half to the block cache, half to memtables.
  size_t memory_budget_bytes = 64u << 20;
  // The cloud profile of tables created without one (partkv/profile.h): its validation limits
  // and, with throttling on, its per-partition throughput budgets.
  std::string profile = "azure-table";
  // Throttling emulation for tables that do not set their own (TableOptions::throttling).
  bool throttling = false;
  // The time source of throughput budgets; null = the steady clock. Tests inject a ManualClock.
  std::shared_ptr<Clock> clock;
  // The longest a write waits while the storage engine holds writes back for its flushes and
  // compactions to catch up; past it the write fails with Busy (nothing written) instead of
  // waiting on. A write delayed (slowed, not stopped) goes on at the delayed rate.
  std::chrono::milliseconds write_stall_timeout{60'000};
  // Threads one query may read physical partitions on at once (table-wide and PartitionKey-range
  // queries, the shards of QueryShards): the calling thread plus workers of a pool the store owns,
  // started on first need and stopped when the store closes. 0 = the machine's cores; 1 = the
  // calling thread only. Results and pages do not depend on it.
  size_t scan_threads = 0;
  // Runs the storage engine's compactions at the lowest CPU priority (nice 19), so that they take
  // the CPU reads and writes leave idle instead of sharing the cores with them: a query right after
  // a burst of writes otherwise competes with the compactions those writes started (measured in
  // README "Performance"). Flushes keep their priority, so writes are not held back for memory.
  // RocksDB's compaction threads belong to its process-wide default environment: this lowers them
  // for every RocksDB database in the process, until it exits (they can be lowered, not raised
  // again). Off by default for that reason; `partkv serve` turns it on.
  bool low_priority_compactions = false;
  // How often the store's maintenance thread sweeps its tables (Table::Sweep): applies each
  // change feed's retention and records the expiries of entities whose time to live ran out in
  // tables that keep a feed. Zero = never in the background (Table::Sweep only). The thread starts
  // with the first table that keeps a feed or a time to live, and costs nothing otherwise.
  std::chrono::milliseconds maintenance_interval{60'000};
  // For a remote store only: its client's connections, timeouts and retries.
  RemoteOptions remote;
};

struct TableOptions {
  // Number of physical partitions, each owning one contiguous range of the 64-bit XXH3 hash space
  // of PartitionKeys and stored as one contiguous key range of the store's shared column families
  // (docs/format.md). Fixed at creation; 1..1024. Costs nothing while idle.
  uint32_t physical_partitions = 16;
  // Key scheme (docs/keys.md): when set, a written entity whose PartitionKey (RowKey) is empty
  // gets it computed from its own properties by this strategy, point reads can be asked by natural
  // attributes (Table::GetByAttributes), and sharded strategies enable Table::QueryShards by base
  // key. Stored in the catalog; survives reopen.
  std::optional<KeyStrategy> partition_key_scheme;
  std::optional<KeyStrategy> row_key_scheme;
  // The table's cloud profile ("azure-table", "cosmos", "dynamodb", "none"); empty = the store's.
  // Stored in the catalog.
  std::string profile;
  // Throttling emulation for this table; unset = the store's setting. Stored in the catalog.
  std::optional<bool> throttling;
  // The table's change feed (partkv/changes.h, docs/changes.md); off by default. Stored in the
  // catalog; Store::SetTableOptions changes it.
  ChangeFeedOptions change_feed;
  // The entities' time to live in seconds (partkv/changes.h): kTtlOff (the default), kTtlNoDefault
  // (-1: only entities with a "ttl" property expire) or N > 0. Stored in the catalog;
  // Store::SetTableOptions changes it.
  int64_t ttl_seconds = kTtlOff;
};

// What Store::SetTableOptions changes in an existing table; a field left unset is left as is.
struct TableSettings {
  std::optional<ChangeFeedOptions> change_feed;
  std::optional<int64_t> ttl_seconds;
};

// Given when a table is opened (Store::OpenTable). A remote table has no partkv catalog, so its
// key schemes (docs/keys.md) come from here: writes compute keys with them, GetByAttributes and
// QueryShards by base key use them. A local table keeps its schemes in its catalog: a scheme given
// here must then be the one the table was created with (InvalidArgument naming both otherwise).
struct OpenTableOptions {
  std::optional<KeyStrategy> partition_key_scheme;
  std::optional<KeyStrategy> row_key_scheme;
};

struct WriteOptions {
  // When true the write is fsync'ed to the write-ahead log before it is acknowledged, so it
  // survives power loss; when false it survives a crash of the process, not of the machine.
  bool sync = false;
  // Recorded in the table's change feed with the write's changes (Change::origin): kSync marks the
  // writes of a sync (partkv/sync.h), which it does not send back to the remote table.
  WriteOrigin origin = WriteOrigin::kApplication;
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_OPTIONS_H_
