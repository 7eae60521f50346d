// Profile specs: the validation limits and the throughput model of each cloud profile
// (api/include/partkv/profile.h, docs/profiles.md).
//
// Throughput is modelled as token buckets. A bucket of rate r units/s and capacity c holds at most
// c units and refills continuously; an operation costing u units takes them if the bucket holds
// u, else fails with Throttled and a retry-after of the time the missing units take to refill.

#ifndef PARTKV_ENGINE_PROFILE_SPEC_H_
#define PARTKV_ENGINE_PROFILE_SPEC_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/validation.h"
#include "partkv/entity.h"
#include "partkv/result.h"

namespace partkv::engine {

struct ThroughputModel {
  // What one bucket covers: one logical partition (PartitionKey) or one physical partition.
  enum class Scope : uint8_t { kLogicalPartition, kPhysicalPartition };
  Scope scope = Scope::kLogicalPartition;
  double write_rate = 0;     // units per second
  double read_rate = 0;      // units per second; 0 = reads draw on the write bucket
  double burst_seconds = 1;  // bucket capacity = rate × burst_seconds
  const char* write_unit = "entities";
  const char* read_unit = "entities";
  const char* signal = "";  // how the service answers a throttled call
};

struct ProfileSpec {
  enum class Kind : uint8_t { kAzureTable, kCosmos, kDynamoDb, kNone };
  std::string name;
  Limits limits;
  ThroughputModel model;
  Kind kind = Kind::kAzureTable;
};

// The spec of a profile name ("azure-table", "cosmos", "dynamodb", "none").
Result<ProfileSpec> GetProfile(std::string_view name);

// Units one write of `entity` costs under the profile (Merge is charged for the properties sent).
double WriteCost(const ProfileSpec& profile, const Entity& entity);
// Units reading `entities` stored entities of `stored_bytes` encoded bytes in all costs (a point
// read, or what one page of a query examined in one partition): azure-table counts entities
// (its target is 2,000 entities/s read or written), cosmos and dynamodb the bytes, rounded up
// once per read as the services do. At least 1.
double ReadCost(const ProfileSpec& profile, size_t stored_bytes, uint64_t entities = 1);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_PROFILE_SPEC_H_
