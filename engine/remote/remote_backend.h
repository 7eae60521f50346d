// The remote backend (engine/backend.h): partkv's Store and Table over a remote Azure Table
// endpoint — Azure Table Storage, Azure Cosmos DB for Table, Azurite or `partkv serve` — named
// by a connection string (connection_string.h). docs/remote.md is the user's account of it.
//
// What a call becomes:
//   CreateTable / DropTable / ListTables   POST /Tables, DELETE /Tables('T'), GET /Tables (paged)
//   OpenTable                              GET /Tables('T') (the table's name as stored)
//   Insert                                 POST /T, Prefer: return-no-content
//   Replace / InsertOrReplace              PUT /T(PartitionKey='…',RowKey='…') [If-Match]
//   Merge / InsertOrMerge                  MERGE /T(…) [If-Match]
//   Delete                                 DELETE /T(…), If-Match (an ETag or *)
//   Get                                    GET /T(…)
//   Submit                                 POST /$batch, one changeset
//   QueryEntities                          GET /T()?$filter=…&$top=…&$select=…
//   QueryShards, GetByAttributes           several of those at once (RemoteOptions::fan_out)
//
// The key conditions of a Query become $filter clauses beside the caller's filter, which is
// parsed first (the same errors as locally) and sent as written. Continuation tokens wrap the
// service's NextPartitionKey/NextRowKey in partkv's sealed token (engine/token.h), bound to the
// table and the query, so a tampered, foreign or cross-query token is refused as locally.
// Entities and batches are checked against Azure Table's limits before anything is sent
// (Cosmos DB for Table's larger entity size when the endpoint is a Cosmos DB one), so a
// violation is the same InvalidArgument as locally, and batch rules hold on servers that are
// laxer than Azure (Azurite commits batches across partitions).
//
// The lost-write rule: when an earlier attempt of a write may have been applied (its response
// was lost, or the service answered 500/502/504) and the retry fails because of that write —
// Insert meets EntityAlreadyExists, a conditional Replace/Merge meets
// UpdateConditionNotSatisfied, Delete meets ResourceNotFound, a batch fails likewise — the
// entity is read back: when it holds what the write sent (every property equal for Insert,
// Replace and upserts; the sent properties equal for Merge; absent for Delete; every operation
// so for a batch), the write is reported as done, with the stored ETag. Otherwise the failure
// stands. A concurrent writer that wrote the very same content in between cannot be told apart.
//
// Thread-safe.

#ifndef PARTKV_ENGINE_REMOTE_REMOTE_BACKEND_H_
#define PARTKV_ENGINE_REMOTE_REMOTE_BACKEND_H_

#include <memory>
#include <string>
#include <string_view>

#include "engine/backend.h"
#include "partkv/options.h"

namespace partkv::remote {

class ServiceClient;

class RemoteStore final : public engine::StoreBackend {
 public:
  // Parses `location` (connection_string.h) and prepares the client; sends nothing.
  static Result<std::shared_ptr<RemoteStore>> Open(std::string_view location,
                                                   const StoreOptions& options);

  Status CreateTable(std::string_view name, const TableOptions& options) override;
  Status DropTable(std::string_view name) override;
  Result<std::vector<TableInfo>> ListTables() const override;
  Result<std::shared_ptr<engine::TableBackend>> OpenTable(
      std::string_view name, const OpenTableOptions& options) const override;
  const StoreCapabilities& capabilities() const override;
  Result<std::string> ServiceProperties() const override;
  Status SetServiceProperties(std::string_view document) override;
  Result<ServiceStatistics> ServiceStats() const override;
  Status Flush() override { return Status::OK(); }
  Status AwaitBackgroundWork(std::chrono::milliseconds) override { return Status::OK(); }
  Status AwaitWritable(std::chrono::milliseconds) override { return Status::OK(); }
  const std::string& path() const override { return url_; }

  explicit RemoteStore(std::shared_ptr<ServiceClient> client);

 private:
  std::shared_ptr<ServiceClient> client_;
  std::string url_;
};

}  // namespace partkv::remote

#endif  // PARTKV_ENGINE_REMOTE_REMOTE_BACKEND_H_
