#include "engine/profile_spec.h"

#include <cmath>

#include "partkv/profile.h"

namespace partkv::engine {

Result<ProfileSpec> GetProfile(std::string_view name) {
  PARTKV_RETURN_IF_ERROR(CheckProfileName(name));
  ProfileSpec p;
  p.name = std::string(name);
  Limits& l = p.limits;
  ThroughputModel& m = p.model;
  if (name == "azure-table") {
    l = Limits::AzureTable();
    // Scalability targets: up to 2,000 entities/s per table partition (1 KiB entities).
    m = {ThroughputModel::Scope::kLogicalPartition,
         kAzureTableEntitiesPerSecond,
         0,
         1,
         "entities",
         "entities",
         "503 ServerBusy"};
  } else if (name == "cosmos") {
    // Cosmos DB for Table: RowKey <= 255 bytes, batch <= 2 MB, documents <= 2 MB.
    l = Limits::AzureTable();
    l.keys_in_utf8 = true;
    l.max_row_key_bytes = 255;
    l.max_entity_bytes = 2u << 20;
    l.max_batch_bytes = 2u << 20;
    l.name = "cosmos";
    p.kind = ProfileSpec::Kind::kCosmos;
    m = {ThroughputModel::Scope::kPhysicalPartition,       kCosmosRuPerSecond, 0, 1, "RU", "RU",
         "429 Request rate is large (x-ms-retry-after-ms)"};
  } else if (name == "dynamodb") {
    // Partition key 1..2048 bytes, sort key 1..1024 bytes, items <= 400 KB; no reserved characters.
    l.size_model = Limits::SizeModel::kDynamoDb;
    l.forbid_key_characters = false;
    l.min_key_bytes = 1;
    l.max_key_bytes = 2048;
    l.max_row_key_bytes = 1024;
    l.max_properties = 100000;
    l.max_property_name_chars = 65535;
    l.max_string_bytes = 400u * 1024;
    l.max_binary_bytes = 400u * 1024;
    l.max_entity_bytes = 400u * 1024;
    l.max_batch_operations = 100;  // TransactWriteItems
    l.max_batch_bytes = 4u << 20;
    l.name = "dynamodb";
    p.kind = ProfileSpec::Kind::kDynamoDb;
    // 1,000 WCU/s and 3,000 RCU/s per partition; up to 300 s of unused capacity kept as burst.
    m = {
        ThroughputModel::Scope::kLogicalPartition,   kDynamoDbWcuPerSecond, 3000, 300, "WCU", "RCU",
        "400 ProvisionedThroughputExceededException"};
  } else {
    l.forbid_key_characters = false;
    l.max_key_bytes = 64u << 10;
    l.max_row_key_bytes = 64u << 10;
    l.max_properties = 100000;
    l.max_property_name_chars = 65535;
    l.max_string_bytes = 64u << 20;
    l.max_binary_bytes = 64u << 20;
    l.max_entity_bytes = 64u << 20;
    l.max_batch_operations = 100;
    l.max_batch_bytes = 256u << 20;
    l.name = "none";
    p.kind = ProfileSpec::Kind::kNone;
    m = {ThroughputModel::Scope::kLogicalPartition, 0, 0, 1, "", "", ""};
  }
  return p;
}

double WriteCost(const ProfileSpec& p, const Entity& entity) {
  if (p.kind == ProfileSpec::Kind::kDynamoDb) {
    return static_cast<double>(DynamoDbWriteUnits(DynamoDbItemSize(entity)));
  }
  if (p.kind == ProfileSpec::Kind::kCosmos) {
    return CosmosWriteRequestUnits(EstimateEntitySize(entity), entity.property_count());
  }
  return 1;  // azure-table counts entities
}

double ReadCost(const ProfileSpec& p, size_t stored_bytes, uint64_t entities) {
  if (p.kind == ProfileSpec::Kind::kDynamoDb) {
    // A strongly consistent read: 1 RCU per 4 KB started.
    return std::max<double>(1, std::ceil(static_cast<double>(stored_bytes) / 4096));
  }
  if (p.kind == ProfileSpec::Kind::kCosmos) {
    // A point read of a 1 KB document costs 1 RU; larger documents proportionally more.
    return std::max<double>(1, std::ceil(static_cast<double>(stored_bytes) / 1024));
  }
  return std::max<double>(1, static_cast<double>(entities));  // azure-table counts entities
}

}  // namespace partkv::engine
