// Validation of table names, keys and entities against a set of limits (docs/design.md
// "Semantics").
//
// The default limits are Azure Table's ("Understanding the Table service data model",
// "Performing entity group transactions"):
//   - PartitionKey / RowKey: valid UTF-8, at most 1 KiB as the service stores them (UTF-16, so
//     512 BMP characters), none of / \ # ? and no control characters U+0000–U+001F, U+007F–U+009F;
//   - at most 252 custom properties; names follow C# identifier rules, at most 255 characters,
//     and may not be a system property name (PartitionKey, RowKey, Timestamp);
//   - String values at most 64 KiB in UTF-16 (32,768 BMP characters), Binary at most 64 KiB;
//   - the entity at most 1 MiB by Azure's size formula (EstimateEntitySize);
//   - a batch at most 100 operations and 4 MiB.
// Every violation is InvalidArgument naming the limit and the offending key or property.

#ifndef PARTKV_ENGINE_VALIDATION_H_
#define PARTKV_ENGINE_VALIDATION_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "partkv/entity.h"
#include "partkv/query.h"
#include "partkv/status.h"

namespace partkv::engine {

struct Limits {
  // How key, String and entity sizes are measured: Azure stores UTF-16 and sizes entities by its
  // published formula; DynamoDB counts UTF-8 bytes of names and values.
  enum class SizeModel : uint8_t { kAzure, kDynamoDb };
  SizeModel size_model = SizeModel::kAzure;
  bool keys_in_utf8 = false;          // key sizes in UTF-8 bytes even under the Azure model
  bool forbid_key_characters = true;  // / \ # ? and control characters
  size_t min_key_bytes = 0;
  size_t max_key_bytes = 1024;      // PartitionKey, in the size model's bytes
  size_t max_row_key_bytes = 1024;  // RowKey
  size_t max_properties = 252;
  size_t max_property_name_chars = 255;
  size_t max_string_bytes = 64 * 1024;  // UTF-16 bytes
  size_t max_binary_bytes = 64 * 1024;
  size_t max_entity_bytes = 1024 * 1024;
  size_t max_batch_operations = 100;
  size_t max_batch_bytes = 4 * 1024 * 1024;

  std::string_view name = "azure-table";  // the profile, for messages

  static Limits AzureTable() { return Limits(); }
};

// Table names: ^[A-Za-z][A-Za-z0-9]{2,62}$ and not the reserved name "tables".
Status ValidateTableName(std::string_view name);

// `what` is "PartitionKey" or "RowKey" (used in the message).
Status ValidateKey(std::string_view key, std::string_view what, const Limits& limits);

Status ValidatePropertyName(std::string_view name, const Limits& limits);

// The checks every backend makes of a query before planning it: the page size (1..1000), one
// PartitionKey or a PartitionKey range (not both), and $select (at most 255 names, each a valid
// property name or a system property).
Status ValidateQueryShape(const Query& query, const Limits& limits);

// Keys, property names, counts, value sizes and the whole entity's size.
// When `size` is given it receives EstimateEntitySize(entity) (computed anyway).
Status ValidateEntity(const Entity& entity, const Limits& limits, size_t* size = nullptr);

// Azure's published estimate of an entity's stored size, in bytes:
//   4 + 2·len16(PartitionKey + RowKey) + Σ (8 + 2·len16(name) + size(value)),
//   size(String) = 2·len16 + 4, size(Binary) = bytes + 4, Boolean 1, DateTime, Double, Int64 8,
//   Guid 16, Int32 4 (len16 = length in UTF-16 code units).
size_t EstimateEntitySize(const Entity& entity);

// DynamoDB's item size: UTF-8 bytes of every attribute name and value (numbers as 8 bytes here,
// Booleans 1, binary and strings their length), including the two keys.
size_t DynamoDbItemSize(const Entity& entity);

// The entity's size in the limits' size model.
size_t EntitySize(const Entity& entity, const Limits& limits);

// The number of UTF-16 code units of valid UTF-8 `s` (each 4-byte sequence counts 2).
size_t Utf16Length(std::string_view s);

// Whether `s` is well-formed UTF-8 (no overlongs, no surrogates, at most U+10FFFF).
bool IsValidUtf8(std::string_view s);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_VALIDATION_H_
