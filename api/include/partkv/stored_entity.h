// The bytes a table stores for an entity (docs/format.md "Entity keys" and "Entity values"), for
// programs that size or reproduce what a store holds without going through one: a benchmark that
// writes the same bytes to a bare RocksDB database, an estimate of a data set's footprint.
// Reading and writing entities is Table's; nothing here touches a store.
//
// Pure functions; thread-safe.

#ifndef PARTKV_STORED_ENTITY_H_
#define PARTKV_STORED_ENTITY_H_

#include <cstdint>
#include <string>

#include "partkv/entity.h"
#include "partkv/value.h"

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

struct StoredEntity {
  // escape(PartitionKey) 0x00 RowKey: the key within its physical partition, without the
  // partition's 6-byte prefix (docs/format.md "Physical partitions").
  std::string key;
  // The format version, `timestamp`, `etag_version` and the entity's properties in its order.
  std::string value;
};

// The key and value a table stores for `entity` written at `timestamp` with ETag version
// `etag_version` (a store sets it to timestamp.ticks; docs/format.md "ETags"). The entity's own
// Timestamp and ETag are not read. Every entity encodes; limits are Table's to check.
StoredEntity EncodeStoredEntity(const Entity& entity, DateTime timestamp, uint64_t etag_version);

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_STORED_ENTITY_H_
