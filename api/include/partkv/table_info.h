// The vocabulary of tables: what a write assigned (WriteResult), a table's catalog facts
// (TableInfo), its stored access policies (AccessPolicy) and a store's replication statistics
// (ServiceStatistics). Plain values, shared by the front
// classes (partkv/store.h, partkv/table.h) and the engine beneath them.

#ifndef PARTKV_TABLE_INFO_H_
#define PARTKV_TABLE_INFO_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "partkv/changes.h"
#include "partkv/keys.h"
#include "partkv/value.h"

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

// What a successful write assigned to the entity.
struct WriteResult {
  std::string etag;
  DateTime timestamp;
};

// Catalog facts about a table.
struct TableInfo {
  std::string name;  // as created (names compare case-insensitively)
  uint32_t id = 0;   // internal id, never reused: the prefix of the table's keys
  uint32_t physical_partitions = 0;
  DateTime created;
  std::string partition_key_scheme;  // strategy text forms; empty = none
  std::string row_key_scheme;
  std::string profile;      // the profile in force (the table's own or the store's)
  bool throttling = false;  // whether throttling emulation is on for the table
  // The key schemes above, parsed (TableOptions::partition_key_scheme, row_key_scheme); nullopt
  // for none. Table::ComputeKeys applies them.
  std::optional<KeyStrategy> partition_key_strategy = std::nullopt;
  std::optional<KeyStrategy> row_key_strategy = std::nullopt;
  // The change feed and time to live (TableOptions::change_feed, ttl_seconds).
  ChangeFeedOptions change_feed = {};
  int64_t ttl_seconds = kTtlOff;
};

// A stored access policy of a table (Azure's SignedIdentifier). A shared access signature that
// names one with si= takes its start, expiry and permissions from it, so changing or removing the
// policy changes or revokes every signature that names it.
struct AccessPolicy {
  std::string id;                 // 1..64 characters, unique within the table
  std::optional<DateTime> start;  // absent: none from the policy
  std::optional<DateTime> expiry;
  std::string permission;  // letters of "raud" (query, add, update, delete), each at most once
  friend bool operator==(const AccessPolicy&, const AccessPolicy&) = default;
};

// Azure's limit on the stored access policies of one table.
inline constexpr size_t kMaxAccessPolicies = 5;

// A store's replication statistics, as Azure's Get Table Service Stats answers them
// (StorageServiceStats/GeoReplication): whether the copy read from is current, and the instant
// before which every acknowledged write is readable there.
struct ServiceStatistics {
  // "live", "bootstrap" or "unavailable" (Azure's GeoReplication Status).
  std::string geo_replication_status;
  // To the second, as Azure gives it; absent when the service names none (while bootstrapping).
  std::optional<DateTime> last_sync_time;
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_TABLE_INFO_H_
