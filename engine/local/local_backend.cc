// The local engine as a backend (local_backend.h).

#include "engine/local/local_backend.h"

#include "engine/local/background_work.h"
#include "engine/local/census_scan.h"
#include "engine/local/query.h"
#include "engine/local/store_state.h"
#include "engine/local/table_handle.h"

namespace partkv::engine {

const std::string& LocalTable::name() const { return handle_->data().record().name; }

TableInfo LocalTable::info() const { return StoreState::InfoOf(handle_->data()); }

Result<WriteResult> LocalTable::Write(OpType type, const Entity& entity, const IfMatch& if_match,
                                      const WriteOptions& options) {
  return handle_->Write(type, entity, if_match, options);
}

Result<Entity> LocalTable::Get(std::string_view partition_key, std::string_view row_key) const {
  return handle_->Get(partition_key, row_key);
}

Result<std::vector<WriteResult>> LocalTable::Submit(const Batch& batch,
                                                    const WriteOptions& options) {
  return handle_->Submit(batch, options);
}

Status LocalTable::QueryEntities(const Query& query, Page* page) const {
  return RunQuery(handle_->store(), handle_->data(), query, page);
}

Status LocalTable::QueryShards(const std::vector<std::string>& shard_keys, const Query& query,
                               Page* page) const {
  return RunShardQuery(handle_->store(), handle_->data(), shard_keys, query, page);
}

Result<Entity> LocalTable::ComputeKeys(const Entity& entity, OpType type) const {
  std::optional<Entity> computed;
  PARTKV_ASSIGN_OR_RETURN(const Entity* keyed, handle_->WithSchemeKeys(type, entity, &computed));
  if (computed) return std::move(*computed);
  return *keyed;
}

Result<Entity> LocalTable::GetByAttributes(const Entity& attributes) const {
  return handle_->GetByAttributes(attributes);
}

const std::optional<KeyStrategy>& LocalTable::partition_key_scheme() const {
  return handle_->data().partition_key_scheme();
}

uint32_t LocalTable::PhysicalPartitionOf(std::string_view partition_key) const {
  return static_cast<uint32_t>(handle_->data().PartitionIndexOf(partition_key));
}

TableStats LocalTable::Statistics(size_t top) const {
  return handle_->data().stats().Snapshot(top);
}

Result<TableCensus> LocalTable::Census(const CensusOptions& options) const {
  PARTKV_RETURN_IF_ERROR(handle_->CheckLive());
  return TakeCensus(handle_->store(), handle_->data(), options);
}

Result<std::vector<AccessPolicy>> LocalTable::AccessPolicies() const {
  PARTKV_RETURN_IF_ERROR(handle_->CheckLive());
  return handle_->data().access_policies();
}

Status LocalTable::SetAccessPolicies(const std::vector<AccessPolicy>& policies) {
  return handle_->store().SetAccessPolicies(&handle_->data(), policies);
}

Status LocalStore::CreateTable(std::string_view name, const TableOptions& options) {
  return state_->CreateTable(name, options);
}

Status LocalStore::DropTable(std::string_view name) { return state_->DropTable(name); }

Result<std::vector<TableInfo>> LocalStore::ListTables() const { return state_->ListTables(); }

Result<std::shared_ptr<TableBackend>> LocalStore::OpenTable(std::string_view name,
                                                            const OpenTableOptions& options) const {
  PARTKV_ASSIGN_OR_RETURN(auto data, state_->FindTable(name));
  // The catalog holds the table's schemes; one given at open must be the same.
  for (auto [given, stored, what] :
       {std::tuple{&options.partition_key_scheme, &data->partition_key_scheme(), "PartitionKey"},
        std::tuple{&options.row_key_scheme, &data->row_key_scheme(), "RowKey"}}) {
    if (!given->has_value()) continue;
    std::string stored_text = stored->has_value() ? (*stored)->ToString() : "none";
    if (stored_text != (*given)->ToString()) {
      return Status::InvalidArgument(std::string("table '") + data->record().name + "' has " +
                                     what + " scheme " + stored_text + ", not " +
                                     (*given)->ToString() + " as given to OpenTable");
    }
  }
  return std::shared_ptr<TableBackend>(
      std::make_shared<LocalTable>(std::make_shared<TableHandle>(state_, std::move(data))));
}

Result<std::string> LocalStore::ServiceProperties() const { return state_->ServiceProperties(); }

Status LocalStore::SetServiceProperties(std::string_view document) {
  return state_->SetServiceProperties(document);
}

// One copy: every acknowledged write is readable at once, so the "replica" is live and current to
// this second (Azure gives LastSyncTime to the second).
Result<ServiceStatistics> LocalStore::ServiceStats() const {
  const int64_t micros = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  return ServiceStatistics{.geo_replication_status = "live",
                           .last_sync_time = DateTime::FromUnixMicros(micros / 1000000 * 1000000)};
}

Status LocalStore::Flush() { return state_->Flush(); }

Status LocalStore::AwaitBackgroundWork(std::chrono::milliseconds timeout) {
  return engine::AwaitBackgroundWork(state_->db(), timeout);
}

Status LocalStore::AwaitWritable(std::chrono::milliseconds timeout) {
  return state_->AwaitWritable(timeout);
}

const std::string& LocalStore::path() const { return state_->path(); }

const StoreCapabilities& LocalStore::capabilities() const {
  static const StoreCapabilities kLocal{.backend = "local",
                                        .descending_scans = true,
                                        .ordered_scans = true,
                                        .scan_budget = true,
                                        .key_scheme_catalog = true,
                                        .physical_partitions = true,
                                        .throttling_emulation = true,
                                        .census = true,
                                        .engine_statistics = true,
                                        .storage_engine = true,
                                        .access_policies = true,
                                        .service_properties = true,
                                        .change_feed = true,
                                        .time_to_live = true};
  return kLocal;
}

Status MissingCapability(std::string_view what, std::string_view capability,
                         std::string_view backend) {
  return Status::InvalidArgument(std::string(what) + " needs the '" + std::string(capability) +
                                 "' capability, which a " + std::string(backend) +
                                 " store lacks (partkv/capabilities.h)");
}

}  // namespace partkv::engine
