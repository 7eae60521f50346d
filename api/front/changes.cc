// The change feed and time to live of the front classes (partkv/changes.h): Table::ReadChanges,
// FeedState, AwaitChanges, Sweep and Store::SetTableOptions, on the local engine
// (engine/local/feed_ops.h). A remote store has neither: Azure Table keeps no change feed.

#include "api/front/front_access.h"
#include "engine/backend.h"
#include "engine/local/feed_ops.h"
#include "engine/local/store_state.h"
#include "engine/local/table_handle.h"
#include "partkv/store.h"
#include "partkv/table.h"

namespace partkv {
namespace {

Status NoFeed(std::string_view what) {
  return engine::MissingCapability(what, "change-feed", "remote");
}

}  // namespace

const char* ChangeOpName(ChangeOp op) {
  switch (op) {
    case ChangeOp::kInsert:
      return "insert";
    case ChangeOp::kReplace:
      return "replace";
    case ChangeOp::kMerge:
      return "merge";
    case ChangeOp::kDelete:
      return "delete";
    case ChangeOp::kExpire:
      return "expire";
  }
  return "unknown";
}

const char* WriteOriginName(WriteOrigin origin) {
  switch (origin) {
    case WriteOrigin::kApplication:
      return "application";
    case WriteOrigin::kSync:
      return "sync";
  }
  return "unknown";
}

Result<ChangesPage> Table::ReadChanges(const ChangesQuery& query) const {
  engine::TableHandle* local = FrontAccess::LocalOf(*this);
  if (local == nullptr) return NoFeed("Table::ReadChanges");
  return engine::ReadChanges(local->store(), local->data(), query);
}

Result<ChangeFeedState> Table::FeedState() const {
  engine::TableHandle* local = FrontAccess::LocalOf(*this);
  if (local == nullptr) return NoFeed("Table::FeedState");
  return engine::FeedState(local->store(), local->data());
}

Result<bool> Table::AwaitChanges(std::string_view continuation,
                                 std::chrono::milliseconds timeout) const {
  engine::TableHandle* local = FrontAccess::LocalOf(*this);
  if (local == nullptr) return NoFeed("Table::AwaitChanges");
  return engine::AwaitChanges(local->store(), local->data(), continuation, timeout);
}

Result<SweepReport> Table::Sweep() {
  engine::TableHandle* local = FrontAccess::LocalOf(*this);
  if (local == nullptr) {
    return engine::MissingCapability("Table::Sweep", "time-to-live", "remote");
  }
  return engine::SweepTable(local->store(), local->data());
}

Status Store::SetTableOptions(std::string_view name, const TableSettings& settings) {
  const std::shared_ptr<engine::StoreState>* local = FrontAccess::LocalOf(*this);
  if (local == nullptr) {
    return engine::MissingCapability("Store::SetTableOptions", "change-feed", "remote");
  }
  return (*local)->SetTableOptions(name, settings);
}

}  // namespace partkv
