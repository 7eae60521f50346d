// The local engine as a backend (engine/backend.h): a store in a directory, one RocksDB database.
// Each method delegates to StoreState, TableHandle and the query engine; this file adds no
// behaviour of its own.

#ifndef PARTKV_ENGINE_LOCAL_LOCAL_BACKEND_H_
#define PARTKV_ENGINE_LOCAL_LOCAL_BACKEND_H_

#include <memory>

#include "engine/backend.h"

namespace partkv::engine {

class LocalTable final : public TableBackend {
 public:
  explicit LocalTable(std::shared_ptr<TableHandle> handle) : handle_(std::move(handle)) {}

  const std::string& name() const override;
  TableInfo info() const override;
  Result<WriteResult> Write(OpType type, const Entity& entity, const IfMatch& if_match,
                            const WriteOptions& options) override;
  Result<Entity> Get(std::string_view partition_key, std::string_view row_key) const override;
  Result<std::vector<WriteResult>> Submit(const Batch& batch, const WriteOptions& options) override;
  Status QueryEntities(const Query& query, Page* page) const override;
  Status QueryShards(const std::vector<std::string>& shard_keys, const Query& query,
                     Page* page) const override;
  Result<Entity> ComputeKeys(const Entity& entity, OpType type) const override;
  Result<Entity> GetByAttributes(const Entity& attributes) const override;
  const std::optional<KeyStrategy>& partition_key_scheme() const override;
  uint32_t PhysicalPartitionOf(std::string_view partition_key) const override;
  TableStats Statistics(size_t top) const override;
  Result<TableCensus> Census(const CensusOptions& options) const override;
  Result<std::vector<AccessPolicy>> AccessPolicies() const override;
  Status SetAccessPolicies(const std::vector<AccessPolicy>& policies) override;
  TableHandle* local() override { return handle_.get(); }

 private:
  std::shared_ptr<TableHandle> handle_;
};

class LocalStore final : public StoreBackend {
 public:
  explicit LocalStore(std::shared_ptr<StoreState> state) : state_(std::move(state)) {}

  Status CreateTable(std::string_view name, const TableOptions& options) override;
  Status DropTable(std::string_view name) override;
  Result<std::vector<TableInfo>> ListTables() const override;
  Result<std::shared_ptr<TableBackend>> OpenTable(std::string_view name,
                                                  const OpenTableOptions& options) const override;
  const StoreCapabilities& capabilities() const override;
  Result<std::string> ServiceProperties() const override;
  Status SetServiceProperties(std::string_view document) override;
  Result<ServiceStatistics> ServiceStats() const override;
  Status Flush() override;
  Status AwaitBackgroundWork(std::chrono::milliseconds timeout) override;
  Status AwaitWritable(std::chrono::milliseconds timeout) override;
  const std::string& path() const override;
  const std::shared_ptr<StoreState>* local() const override { return &state_; }

 private:
  std::shared_ptr<StoreState> state_;
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_LOCAL_BACKEND_H_
