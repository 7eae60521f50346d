// Store: the public facade over a backend (engine/backend.h): the local engine or a remote
// endpoint's client, opened here.

#include "partkv/store.h"

#include "api/front/front_access.h"
#include "engine/local/local_backend.h"
#include "engine/local/store_state.h"
#include "engine/remote/connection_string.h"
#include "engine/remote/remote_backend.h"

namespace partkv {

Store::Store(std::shared_ptr<engine::StoreBackend> backend) : backend_(std::move(backend)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

Result<Store> Store::Open(std::string_view path, const StoreOptions& options) {
  if (remote::IsRemoteLocation(path)) {
    PARTKV_ASSIGN_OR_RETURN(auto remote, remote::RemoteStore::Open(path, options));
    return Store(std::move(remote));
  }
  PARTKV_ASSIGN_OR_RETURN(auto state, engine::StoreState::Open(std::string(path), options));
  return Store(std::make_shared<engine::LocalStore>(std::move(state)));
}

bool Store::IsRemoteLocation(std::string_view location) {
  return remote::IsRemoteLocation(location);
}

std::string Store::RedactLocation(std::string_view location) { return remote::Redact(location); }

Status Store::CreateTable(std::string_view name, const TableOptions& options) {
  return backend_->CreateTable(name, options);
}

Status Store::DropTable(std::string_view name) { return backend_->DropTable(name); }

Result<std::vector<TableInfo>> Store::ListTables() const {
  PARTKV_ASSIGN_OR_RETURN(std::vector<TableInfo> tables, backend_->ListTables());
  // The catalog holds the schemes as text; each parsed when the store loaded it, so it parses.
  for (TableInfo& t : tables) {
    for (auto [text, parsed] : {std::pair{&t.partition_key_scheme, &t.partition_key_strategy},
                                std::pair{&t.row_key_scheme, &t.row_key_strategy}}) {
      if (text->empty()) continue;
      auto strategy = KeyStrategy::Parse(*text);
      if (!strategy.ok()) {
        return Status::Corruption(
            "table '" + t.name + "' has an unreadable key scheme: " + strategy.status().ToString());
      }
      *parsed = std::move(*strategy);
    }
  }
  return tables;
}

Result<Table> Store::OpenTable(std::string_view name) const { return OpenTable(name, {}); }

Result<Table> Store::OpenTable(std::string_view name, const OpenTableOptions& options) const {
  for (const auto* scheme : {&options.partition_key_scheme, &options.row_key_scheme}) {
    if (*scheme) PARTKV_RETURN_IF_ERROR((*scheme)->Validate());
  }
  PARTKV_ASSIGN_OR_RETURN(auto table, backend_->OpenTable(name, options));
  return FrontAccess::MakeTable(std::move(table));
}

const StoreCapabilities& Store::capabilities() const { return backend_->capabilities(); }

Result<std::string> Store::ServiceProperties() const { return backend_->ServiceProperties(); }
Result<ServiceStatistics> Store::ServiceStats() const { return backend_->ServiceStats(); }
Status Store::SetServiceProperties(std::string_view document) {
  return backend_->SetServiceProperties(document);
}

Status Store::Flush() { return backend_->Flush(); }
Status Store::AwaitBackgroundWork(std::chrono::milliseconds timeout) {
  return backend_->AwaitBackgroundWork(timeout);
}
Status Store::AwaitWritable(std::chrono::milliseconds timeout) {
  return backend_->AwaitWritable(timeout);
}

const std::string& Store::path() const { return backend_->path(); }

}  // namespace partkv
