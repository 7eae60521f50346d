// What a table's key schemes (docs/keys.md) do on every backend: compute the keys a write leaves
// empty, and find an entity by its natural attributes. The local engine takes the schemes from
// its catalog, the remote client from OpenTableOptions; both call these.
//
// Pure functions (but for the `get` callback); thread-safe.

#ifndef PARTKV_ENGINE_KEY_SCHEMES_H_
#define PARTKV_ENGINE_KEY_SCHEMES_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/batch.h"
#include "partkv/entity.h"
#include "partkv/keys.h"
#include "partkv/result.h"
#include "partkv/table_info.h"

namespace partkv::engine {

struct KeySchemes {
  const std::optional<KeyStrategy>& partition_key;
  const std::optional<KeyStrategy>& row_key;
};

// When a scheme computes a key `entity` leaves empty, sets *computed to a copy with the key
// computed and returns a pointer to it; else returns &entity. InvalidArgument naming the key and
// the cause when a property the scheme reads is absent, or when a random-suffix key would be
// drawn for an operation that addresses an existing entity (replace, merge, delete).
Result<const Entity*> WithSchemeKeys(const KeySchemes& schemes, OpType type, const Entity& entity,
                                     std::optional<Entity>* computed);

// Reads the entity with the keys the schemes compute from `attributes`, through `get`, which
// reads the entities of the candidate (PartitionKey, RowKey) pairs in order and returns the first
// found (NotFound when none is). A random-suffix PartitionKey has one candidate per shard.
// InvalidArgument when `table` has no scheme, or the RowKey scheme is random-suffix.
using GetFirst = std::function<Result<Entity>(
    const std::vector<std::pair<std::string, std::string>>& candidates)>;
Result<Entity> GetByAttributes(const KeySchemes& schemes, std::string_view table,
                               const Entity& attributes, const GetFirst& get);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_KEY_SCHEMES_H_
