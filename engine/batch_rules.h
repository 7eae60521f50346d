// The rules of an entity group transaction (Azure Table's batch), on every backend: at most
// limits.max_batch_operations operations, one PartitionKey, no row twice, every entity valid and
// all of them together at most limits.max_batch_bytes. The errors name the failing operation's
// index (Status::failed_op), as Azure's "index:message" does. Pure functions; thread-safe.

#ifndef PARTKV_ENGINE_BATCH_RULES_H_
#define PARTKV_ENGINE_BATCH_RULES_H_

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/validation.h"
#include "partkv/batch.h"
#include "partkv/status.h"

namespace partkv::engine {

// Every rule above, checked on `ops` (their keys already computed). OK for an empty batch.
Status ValidateBatch(const std::vector<BatchOp>& ops, const Limits& limits);

// The rules' errors, for callers that check rows of their own form (sealed rows).
Status TooManyOperations(size_t n, const Limits& limits);
Status MixedPartitionKeys(std::string_view pk, std::string_view first, int index);
Status BatchTooLarge(const Limits& limits, int index);
// Two operations on one row: the error names the later of the two. `rows` holds (RowKey, index)
// of every operation; it is sorted here.
Status DuplicateRows(std::vector<std::pair<std::string_view, int>>& rows);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_BATCH_RULES_H_
