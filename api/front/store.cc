// Store: the public facade over engine::StoreState.

#include "partkv/store.h"

#include "api/front/front_access.h"
#include "engine/background_work.h"

namespace partkv {

Store::Store(std::shared_ptr<engine::StoreState> state) : state_(std::move(state)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

Result<Store> Store::Open(std::string_view path, const StoreOptions& options) {
  PARTKV_ASSIGN_OR_RETURN(auto state, engine::StoreState::Open(std::string(path), options));
  return Store(std::move(state));
}

Status Store::CreateTable(std::string_view name, const TableOptions& options) {
  return state_->CreateTable(name, options);
}

Status Store::DropTable(std::string_view name) { return state_->DropTable(name); }

Result<std::vector<TableInfo>> Store::ListTables() const {
  std::vector<TableInfo> tables = state_->ListTables();
  // The catalog holds the schemes as text; each parsed when the store loaded it, so it parses.
  for (TableInfo& t : tables) {
    for (auto [text, parsed] : {std::pair{&t.partition_key_scheme, &t.partition_key_strategy},
                                std::pair{&t.row_key_scheme, &t.row_key_strategy}}) {
      if (text->empty()) continue;
      auto strategy = KeyStrategy::Parse(*text);
      if (!strategy.ok()) {
        return Status::Corruption("table '" + t.name + "' has an unreadable key scheme: " +
                                  strategy.status().ToString());
      }
      *parsed = std::move(*strategy);
    }
  }
  return tables;
}

Result<Table> Store::OpenTable(std::string_view name) const {
  PARTKV_ASSIGN_OR_RETURN(auto data, state_->FindTable(name));
  return FrontAccess::MakeTable(std::make_shared<engine::TableHandle>(state_, std::move(data)));
}

Result<std::string> Store::ServiceProperties() const { return state_->ServiceProperties(); }
Status Store::SetServiceProperties(std::string_view document) {
  return state_->SetServiceProperties(document);
}

Status Store::Flush() { return state_->Flush(); }
Status Store::AwaitBackgroundWork(std::chrono::milliseconds timeout) {
  return engine::AwaitBackgroundWork(state_->db(), timeout);
}
Status Store::AwaitWritable(std::chrono::milliseconds timeout) {
  return state_->AwaitWritable(timeout);
}

const std::string& Store::path() const { return state_->path(); }

}  // namespace partkv
