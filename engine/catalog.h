// The catalog: what the `meta` column family holds (docs/format.md "The meta column family").
//
//   key "format"          value: decimal format version ("1")
//   key "secret"          value: 32 random bytes, the key of continuation-token checksums
//   key "etag_reserved"   value: decimal; every ETag version below it may have been issued
//   key "next_table_id"   value: decimal id of the next table
//   key "service_properties"          value: the service properties document, as given
//   key "table/" + lower-cased name   value: a TableRecord as JSON
//
// Column families of physical partitions are named "t<id>.p<index>".

#ifndef PARTKV_ENGINE_CATALOG_H_
#define PARTKV_ENGINE_CATALOG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/result.h"
#include "partkv/table.h"

namespace partkv::engine {

// The on-disk format this build writes and reads. Persisted: bump only with a migration.
inline constexpr uint32_t kStoreFormatVersion = 1;

inline constexpr char kMetaColumnFamily[] = "meta";
inline constexpr char kFormatKey[] = "format";
inline constexpr char kSecretKey[] = "secret";
inline constexpr char kEtagReservedKey[] = "etag_reserved";
inline constexpr char kNextTableIdKey[] = "next_table_id";
inline constexpr char kTablePrefix[] = "table/";
inline constexpr char kServicePropertiesKey[] = "service_properties";

struct TableRecord {
  std::string name;  // as created
  uint32_t id = 0;
  int64_t created_ticks = 0;
  // lower_bounds[i] is the smallest XXH3 hash owned by physical partition i; lower_bounds[0] == 0
  // and the list is strictly increasing. Partition i owns [lower_bounds[i], lower_bounds[i+1]).
  std::vector<uint64_t> lower_bounds;
  std::string profile;     // empty = the store's profile
  int throttling = -1;     // -1 = the store's setting, 0 off, 1 on
  std::string pk_scheme;  // key strategy text forms; empty = none
  std::string rk_scheme;
  std::vector<AccessPolicy> access_policies;  // stored access policies (Table::SetAccessPolicies)
};

// InvalidArgument unless `policies` is a valid set for Table::SetAccessPolicies.
Status ValidateAccessPolicies(const std::vector<AccessPolicy>& policies);

std::string EncodeTableRecord(const TableRecord& record);
Result<TableRecord> DecodeTableRecord(std::string_view bytes);

// The even split of the hash space into n ranges: lower bound i = ceil(i * 2^64 / n), so that
// partition(h) = floor(h * n / 2^64).
std::vector<uint64_t> EvenLowerBounds(uint32_t n);

std::string PartitionColumnFamilyName(uint32_t table_id, uint32_t index);
// Parses "t<id>.p<index>"; false for other names.
bool ParsePartitionColumnFamilyName(std::string_view name, uint32_t* table_id, uint32_t* index);

std::string TableKey(std::string_view name);  // "table/" + lower-cased name
std::string LowerCase(std::string_view s);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_CATALOG_H_
