// partkv::Batch — up to 100 write operations on distinct rows of one PartitionKey, applied
// atomically (all or nothing) by Table::Submit, like an Azure Table entity group transaction.
//
// A Batch only records operations; nothing is checked until it is submitted. Submit rejects,
// before writing anything: more than 100 operations, more than 4 MiB of entity data, two
// operations on the same RowKey, operations on different PartitionKeys, and any invalid entity.
// A failing condition (an insert of an existing row, a stale ETag, a missing row) fails the whole
// batch; the Status then names the 0-based index of the failing operation (Status::failed_op()).
//
// A Batch is a plain value; it may be reused after Clear().

#ifndef PARTKV_BATCH_H_
#define PARTKV_BATCH_H_

#include <string>
#include <utility>
#include <vector>

#include "partkv/entity.h"
#include "partkv/if_match.h"

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

enum class OpType : uint8_t {
  kInsert,           // fails with AlreadyExists when the row exists
  kReplace,          // whole-entity replace; REQUIRES the row to exist and the ETag to match
  kMerge,            // property-wise update; REQUIRES the row to exist and the ETag to match
  kInsertOrReplace,  // upsert, whole entity
  kInsertOrMerge,    // upsert, property-wise
  kDelete,           // REQUIRES the row to exist and the ETag to match
};

std::string_view OpTypeName(OpType type);

struct BatchOp {
  OpType type;
  Entity entity;     // for kDelete only the keys matter
  IfMatch if_match;  // for kReplace, kMerge, kDelete
};

class Batch {
 public:
  static constexpr size_t kMaxOperations = 100;
  static constexpr size_t kMaxBytes = 4u << 20;

  Batch& Insert(Entity e) { return Add(OpType::kInsert, std::move(e), IfMatch::Any()); }
  Batch& Replace(Entity e, IfMatch m) { return Add(OpType::kReplace, std::move(e), std::move(m)); }
  Batch& Merge(Entity e, IfMatch m) { return Add(OpType::kMerge, std::move(e), std::move(m)); }
  Batch& InsertOrReplace(Entity e) {
    return Add(OpType::kInsertOrReplace, std::move(e), IfMatch::Any());
  }
  Batch& InsertOrMerge(Entity e) {
    return Add(OpType::kInsertOrMerge, std::move(e), IfMatch::Any());
  }
  Batch& Delete(std::string pk, std::string rk, IfMatch m) {
    return Add(OpType::kDelete, Entity(std::move(pk), std::move(rk)), std::move(m));
  }
  Batch& Add(OpType type, Entity e, IfMatch m) {
    ops_.push_back(BatchOp{type, std::move(e), std::move(m)});
    return *this;
  }

  size_t size() const { return ops_.size(); }
  bool empty() const { return ops_.empty(); }
  void Clear() { ops_.clear(); }
  const std::vector<BatchOp>& ops() const { return ops_; }

 private:
  std::vector<BatchOp> ops_;
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_BATCH_H_
