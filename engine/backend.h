// The backend interface: what the front classes (partkv::Store, partkv::Table; api/front/) ask of
// whatever holds the data. The local engine implements it (engine/local/local_backend.h), and so
// does the client of a remote Azure Table endpoint (engine/remote/remote_backend.h). Nothing above
// this interface knows which one it talks to.
//
// Every method has the contract of the public method of the same name (partkv/store.h,
// partkv/table.h). A backend that cannot honour a call answers InvalidArgument naming the
// capability it lacks (MissingCapability; partkv/capabilities.h), never a silently different
// answer.
//
// Thread-safety: every method may be called from any number of threads at once.

#ifndef PARTKV_ENGINE_BACKEND_H_
#define PARTKV_ENGINE_BACKEND_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/batch.h"
#include "partkv/capabilities.h"
#include "partkv/census.h"
#include "partkv/entity.h"
#include "partkv/if_match.h"
#include "partkv/keys.h"
#include "partkv/options.h"
#include "partkv/query.h"
#include "partkv/result.h"
#include "partkv/stats.h"
#include "partkv/status.h"
#include "partkv/table_info.h"

namespace partkv::engine {

class StoreState;
class TableHandle;

// One open table, as a Table handle sees it.
class TableBackend {
 public:
  virtual ~TableBackend() = default;

  virtual const std::string& name() const = 0;
  virtual TableInfo info() const = 0;

  virtual Result<WriteResult> Write(OpType type, const Entity& entity, const IfMatch& if_match,
                                    const WriteOptions& options) = 0;
  virtual Result<Entity> Get(std::string_view partition_key, std::string_view row_key) const = 0;
  virtual Result<std::vector<WriteResult>> Submit(const Batch& batch,
                                                  const WriteOptions& options) = 0;
  virtual Status QueryEntities(const Query& query, Page* page) const = 0;
  // The scatter-gather read of `shard_keys` (the PartitionKeys of one sharded logical key),
  // merged by RowKey; Table::QueryShards has checked the strategy and computed the keys.
  virtual Status QueryShards(const std::vector<std::string>& shard_keys, const Query& query,
                             Page* page) const = 0;

  virtual Result<Entity> ComputeKeys(const Entity& entity, OpType type) const = 0;
  virtual Result<Entity> GetByAttributes(const Entity& attributes) const = 0;
  // The table's sharded (or any) PartitionKey scheme, when it has one.
  virtual const std::optional<KeyStrategy>& partition_key_scheme() const = 0;
  virtual uint32_t PhysicalPartitionOf(std::string_view partition_key) const = 0;

  virtual TableStats Statistics(size_t top) const = 0;
  virtual Result<TableCensus> Census(const CensusOptions& options) const = 0;
  virtual Result<std::vector<AccessPolicy>> AccessPolicies() const = 0;
  virtual Status SetAccessPolicies(const std::vector<AccessPolicy>& policies) = 0;

  // The local engine's handle behind this table, or nullptr for another backend (for the bulk
  // writer's local path, the engine's tests and the benchmarks of internals).
  virtual TableHandle* local() { return nullptr; }
};

// The error of a call that needs `capability` (partkv/capabilities.h), which the store's
// `backend` lacks.
Status MissingCapability(std::string_view what, std::string_view capability,
                         std::string_view backend);

// One open store, as a Store handle sees it.
class StoreBackend {
 public:
  virtual ~StoreBackend() = default;

  virtual Status CreateTable(std::string_view name, const TableOptions& options) = 0;
  virtual Status DropTable(std::string_view name) = 0;
  // Every table, sorted by name; the key schemes as text (the front parses them).
  virtual Result<std::vector<TableInfo>> ListTables() const = 0;
  virtual Result<std::shared_ptr<TableBackend>> OpenTable(
      std::string_view name, const OpenTableOptions& options) const = 0;
  virtual const StoreCapabilities& capabilities() const = 0;

  virtual Result<std::string> ServiceProperties() const = 0;
  virtual Status SetServiceProperties(std::string_view document) = 0;
  virtual Result<ServiceStatistics> ServiceStats() const = 0;

  virtual Status Flush() = 0;
  virtual Status AwaitBackgroundWork(std::chrono::milliseconds timeout) = 0;
  virtual Status AwaitWritable(std::chrono::milliseconds timeout) = 0;
  virtual const std::string& path() const = 0;

  // The local engine behind this store, or nullptr for another backend.
  virtual const std::shared_ptr<StoreState>* local() const { return nullptr; }
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_BACKEND_H_
