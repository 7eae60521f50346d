// The catalog: what the `meta` column family holds (docs/format.md "The meta column family").
//
//   key "format"                 value: decimal format version ("2")
//   key "secret"                 value: 32 random bytes, the key of continuation-token checksums
//   key "clock_reserved"         value: decimal ticks; every ETag/Timestamp below it may have
//                                been issued
//   key "next_table_id"          value: decimal id of the next table
//   key "data_column_families"   value: decimal count of the shared data column families
//   key "service_properties"     value: the service properties document, as given
//   key "table/" + lower-cased name   value: a TableRecord as JSON
//   key "dropped/" + id (10 digits)   value: empty; the table with that id was dropped
//   key "feed_trim/" + id (10 digits) value: decimal; the oldest change feed position kept
//
// Entities live in data column families "d<k>" shared by every table of the store. Physical
// partition i of table t is the key range whose keys begin with PartitionKeyPrefix(t, i), inside
// the data column family DataColumnFamilyOf(t, lower_bound(i)).

#ifndef PARTKV_ENGINE_LOCAL_CATALOG_H_
#define PARTKV_ENGINE_LOCAL_CATALOG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/changes.h"
#include "partkv/result.h"
#include "partkv/table_info.h"

namespace partkv::engine {

// The on-disk format this build writes and reads. Persisted: bump only with a migration.
// Version 1 (one column family per physical partition, counter ETags) is migrated on open
// (engine/local/migration.h). Version 3 adds change feeds and time to live (table record fields
// "feed" and "ttl", feed entries, "feed_trim/" keys): a version-2 store is one already, and its
// format key is rewritten at open, so that a build that knows no feed refuses the store rather
// than write to a feed table without recording its changes. Version 4 keeps every feed entry in
// a column family of its own ("feed"); a version-3 store's entries are moved there at open
// (engine/local/migration.h).
inline constexpr uint32_t kStoreFormatVersion = 4;
inline constexpr uint32_t kFormatVersion3 = 3;
inline constexpr uint32_t kFormatVersion2 = 2;
inline constexpr uint32_t kFormatVersion1 = 1;

// Data column families of a new store. Persisted per store ("data_column_families"), so a later
// release may choose another count for new stores and still read old ones.
inline constexpr uint32_t kDefaultDataColumnFamilies = 16;
inline constexpr uint32_t kMaxDataColumnFamilies = 256;

inline constexpr char kMetaColumnFamily[] = "meta";
inline constexpr char kFeedColumnFamily[] = "feed";
inline constexpr char kFormatKey[] = "format";
inline constexpr char kSecretKey[] = "secret";
inline constexpr char kEtagReservedKey[] = "etag_reserved";  // format 1 only
inline constexpr char kClockReservedKey[] = "clock_reserved";
inline constexpr char kDataColumnFamiliesKey[] = "data_column_families";
inline constexpr char kNextTableIdKey[] = "next_table_id";
inline constexpr char kTablePrefix[] = "table/";
inline constexpr char kDroppedPrefix[] = "dropped/";
inline constexpr char kFeedTrimPrefix[] = "feed_trim/";
inline constexpr char kServicePropertiesKey[] = "service_properties";

struct TableRecord {
  std::string name;  // as created
  uint32_t id = 0;
  int64_t created_ticks = 0;
  // lower_bounds[i] is the smallest XXH3 hash owned by physical partition i; lower_bounds[0] == 0
  // and the list is strictly increasing. Partition i owns [lower_bounds[i], lower_bounds[i+1]).
  std::vector<uint64_t> lower_bounds;
  std::string profile;    // empty = the store's profile
  int throttling = -1;    // -1 = the store's setting, 0 off, 1 on
  std::string pk_scheme;  // key strategy text forms; empty = none
  std::string rk_scheme;
  std::vector<AccessPolicy> access_policies;  // stored access policies (Table::SetAccessPolicies)
  // The change feed's options; `feed_set` once a feed was ever configured, so that its entries
  // may exist (format 3).
  bool feed_set = false;
  ChangeFeedOptions feed;
  int64_t ttl_seconds = kTtlOff;  // TableOptions::ttl_seconds (format 3)
};

// InvalidArgument unless `policies` is a valid set for Table::SetAccessPolicies.
Status ValidateAccessPolicies(const std::vector<AccessPolicy>& policies);

std::string EncodeTableRecord(const TableRecord& record);
Result<TableRecord> DecodeTableRecord(std::string_view bytes);

// The even split of the hash space into n ranges: lower bound i = ceil(i * 2^64 / n), so that
// partition(h) = floor(h * n / 2^64).
std::vector<uint64_t> EvenLowerBounds(uint32_t n);

// "d<k>": the k-th shared data column family.
std::string DataColumnFamilyName(uint32_t k);
// Parses "d<k>"; false for other names.
bool ParseDataColumnFamilyName(std::string_view name, uint32_t* k);
// The data column family (of `count`) holding the physical partition of table `table_id` whose
// hash range starts at `lower_bound`: the partitions of one table are spread evenly over the
// column families, and tables with few partitions start at different ones.
uint32_t DataColumnFamilyOf(uint32_t table_id, uint64_t lower_bound, uint32_t count);

// The 6-byte key prefix of physical partition `index` of table `table_id`: the id as a
// big-endian u32, then the index as a big-endian u16. Every key of a table sorts within
// [TablePrefix(id), TablePrefix(id + 1)).
std::string PartitionKeyPrefix(uint32_t table_id, uint32_t index);
std::string TablePrefix(uint32_t table_id);
inline constexpr size_t kPartitionKeyPrefixLength = 6;

// Format 1: "t<id>.p<index>", the column family of one physical partition.
std::string PartitionColumnFamilyName(uint32_t table_id, uint32_t index);
// Parses "t<id>.p<index>"; false for other names.
bool ParsePartitionColumnFamilyName(std::string_view name, uint32_t* table_id, uint32_t* index);

std::string TableKey(std::string_view name);
std::string DroppedKey(uint32_t table_id);
std::string FeedTrimKey(uint32_t table_id);  // "feed_trim/" + the id in 10 decimal digits  //
                                             // "dropped/" + the id in 10 decimal digits
bool ParseDroppedKey(std::string_view key, uint32_t* table_id);  // "table/" + lower-cased name
std::string LowerCase(std::string_view s);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_CATALOG_H_
