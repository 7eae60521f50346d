// The rules of a batch (batch_rules.h).

#include "engine/batch_rules.h"

#include <algorithm>
#include <string>

namespace partkv::engine {

Status TooManyOperations(size_t n, const Limits& limits) {
  return Status::InvalidArgument("the batch has " + std::to_string(n) +
                                 " operations; the limit is " +
                                 std::to_string(limits.max_batch_operations))
      .WithFailedOp(static_cast<int>(limits.max_batch_operations));
}

Status MixedPartitionKeys(std::string_view pk, std::string_view first, int index) {
  return Status::InvalidArgument("all operations of a batch must share one PartitionKey: '" +
                                 std::string(pk) + "' differs from '" + std::string(first) + "'")
      .WithFailedOp(index);
}

Status BatchTooLarge(const Limits& limits, int index) {
  return Status::InvalidArgument("the batch's entities exceed " +
                                 std::to_string(limits.max_batch_bytes) + " bytes" +
                                 (limits.max_batch_bytes == (4u << 20) ? " (4 MiB)" : "") +
                                 ", the " + std::string(limits.name) + " limit")
      .WithFailedOp(index);
}

Status DuplicateRows(std::vector<std::pair<std::string_view, int>>& rows) {
  if (!std::is_sorted(rows.begin(), rows.end())) std::sort(rows.begin(), rows.end());
  int duplicate = -1;
  std::string_view row_key;
  for (size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].first == rows[i - 1].first && (duplicate < 0 || rows[i].second < duplicate)) {
      duplicate = rows[i].second;
      row_key = rows[i].first;
    }
  }
  if (duplicate < 0) return Status::OK();
  return Status::InvalidArgument("a command with RowKey '" + std::string(row_key) +
                                 "' is already present in the batch")
      .WithFailedOp(duplicate);
}

Status ValidateBatch(const std::vector<BatchOp>& ops, const Limits& limits) {
  if (ops.empty()) return Status::OK();
  if (ops.size() > limits.max_batch_operations) return TooManyOperations(ops.size(), limits);
  const std::string& pk = ops[0].entity.partition_key();
  std::vector<std::pair<std::string_view, int>> rows;  // (RowKey, index), to find duplicates
  rows.reserve(ops.size());
  size_t bytes = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const Entity& e = ops[i].entity;
    int index = static_cast<int>(i);
    if (e.partition_key() != pk) return MixedPartitionKeys(e.partition_key(), pk, index);
    rows.emplace_back(e.row_key(), index);
    size_t size = 0;
    Status s = ValidateKey(e.row_key(), "RowKey", limits);
    if (ops[i].type != OpType::kDelete) {
      s = ValidateEntity(e, limits, &size);
    } else {
      size = EntitySize(e, limits);
    }
    if (s.ok() && i == 0) s = ValidateKey(pk, "PartitionKey", limits);
    if (!s.ok()) return s.WithFailedOp(index);
    bytes += size;
    if (bytes > limits.max_batch_bytes) return BatchTooLarge(limits, index);
  }
  return DuplicateRows(rows);
}

}  // namespace partkv::engine
