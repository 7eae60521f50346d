// Table: the public facade over a table backend (engine/backend.h).

#include "partkv/table.h"

#include "engine/backend.h"

namespace partkv {

std::string_view OpTypeName(OpType type) {
  switch (type) {
    case OpType::kInsert:
      return "insert";
    case OpType::kReplace:
      return "replace";
    case OpType::kMerge:
      return "merge";
    case OpType::kInsertOrReplace:
      return "insert-or-replace";
    case OpType::kInsertOrMerge:
      return "insert-or-merge";
    case OpType::kDelete:
      return "delete";
  }
  return "unknown";
}

const std::string& Table::name() const { return backend_->name(); }

Result<std::vector<AccessPolicy>> Table::AccessPolicies() const {
  return backend_->AccessPolicies();
}

Status Table::SetAccessPolicies(const std::vector<AccessPolicy>& policies) {
  return backend_->SetAccessPolicies(policies);
}

TableInfo Table::info() const { return backend_->info(); }

Result<Entity> Table::ComputeKeys(const Entity& entity, OpType type) const {
  return backend_->ComputeKeys(entity, type);
}

uint32_t Table::PhysicalPartitionOf(std::string_view partition_key) const {
  return backend_->PhysicalPartitionOf(partition_key);
}

Result<WriteResult> Table::Insert(const Entity& entity, const WriteOptions& options) {
  return backend_->Write(OpType::kInsert, entity, IfMatch::Any(), options);
}

Result<WriteResult> Table::Replace(const Entity& entity, const IfMatch& if_match,
                                   const WriteOptions& options) {
  return backend_->Write(OpType::kReplace, entity, if_match, options);
}

Result<WriteResult> Table::Merge(const Entity& entity, const IfMatch& if_match,
                                 const WriteOptions& options) {
  return backend_->Write(OpType::kMerge, entity, if_match, options);
}

Result<WriteResult> Table::InsertOrReplace(const Entity& entity, const WriteOptions& options) {
  return backend_->Write(OpType::kInsertOrReplace, entity, IfMatch::Any(), options);
}

Result<WriteResult> Table::InsertOrMerge(const Entity& entity, const WriteOptions& options) {
  return backend_->Write(OpType::kInsertOrMerge, entity, IfMatch::Any(), options);
}

Status Table::Delete(std::string_view partition_key, std::string_view row_key,
                     const IfMatch& if_match, const WriteOptions& options) {
  return backend_
      ->Write(OpType::kDelete, Entity(std::string(partition_key), std::string(row_key)), if_match,
              options)
      .status();
}

Result<Entity> Table::Get(std::string_view partition_key, std::string_view row_key) const {
  return backend_->Get(partition_key, row_key);
}

Result<std::vector<WriteResult>> Table::Submit(const Batch& batch, const WriteOptions& options) {
  return backend_->Submit(batch, options);
}

}  // namespace partkv

namespace partkv {

Result<Page> Table::QueryEntities(const Query& query) const {
  Page page;
  PARTKV_RETURN_IF_ERROR(QueryEntities(query, &page));
  return page;
}

Status Table::QueryEntities(const Query& query, Page* page) const {
  return backend_->QueryEntities(query, page);
}

}  // namespace partkv

namespace partkv {

Result<Entity> Table::GetByAttributes(const Entity& attributes) const {
  return backend_->GetByAttributes(attributes);
}

Result<Page> Table::QueryShards(std::string_view base, const Query& query) const {
  Page page;
  PARTKV_RETURN_IF_ERROR(QueryShards(base, query, &page));
  return page;
}

Result<Page> Table::QueryShards(const KeyStrategy& strategy, std::string_view base,
                                const Query& query) const {
  Page page;
  PARTKV_RETURN_IF_ERROR(QueryShards(strategy, base, query, &page));
  return page;
}

Status Table::QueryShards(std::string_view base, const Query& query, Page* page) const {
  const auto& scheme = backend_->partition_key_scheme();
  if (!scheme || !scheme->is_sharded()) {
    return Status::InvalidArgument("table '" + name() +
                                   "' has no sharded PartitionKey scheme; pass the strategy");
  }
  return QueryShards(*scheme, base, query, page);
}

Status Table::QueryShards(const KeyStrategy& strategy, std::string_view base, const Query& query,
                          Page* page) const {
  PARTKV_RETURN_IF_ERROR(strategy.Validate());
  if (!strategy.is_sharded()) {
    return Status::InvalidArgument("strategy " + strategy.ToString() +
                                   " is not sharded (random-suffix or hash-suffix)");
  }
  return backend_->QueryShards(strategy.ShardKeys(base), query, page);
}

}  // namespace partkv

namespace partkv {

TableStats Table::Statistics(size_t top) const { return backend_->Statistics(top); }

Result<TableCensus> Table::Census(const CensusOptions& options) const {
  return backend_->Census(options);
}

}  // namespace partkv
