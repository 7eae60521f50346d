// FrontAccess: the one way from a front object (partkv::Store, partkv::Table) to the engine
// object behind it, for the front classes' own implementation (api/front/), the engine's tests
// and the benchmarks that measure internals. Like LevelDB's WriteBatchInternal, it is a friend of
// the classes it opens and is not installed: applications see only the public headers, and
// libpartkv.so exports no engine symbol.

#ifndef PARTKV_API_FRONT_FRONT_ACCESS_H_
#define PARTKV_API_FRONT_FRONT_ACCESS_H_

#include <memory>
#include <utility>

#include "engine/store_state.h"
#include "engine/table_handle.h"
#include "partkv/store.h"
#include "partkv/table.h"

namespace partkv {

class FrontAccess {
 public:
  // The store's engine state; valid while `store` (or any Table of it) lives.
  static engine::StoreState& Of(const Store& store) { return *store.state_; }
  static const std::shared_ptr<engine::StoreState>& Shared(const Store& store) {
    return store.state_;
  }
  // The table handle's engine side.
  static engine::TableHandle& Of(const Table& table) { return *table.handle_; }

  static Store MakeStore(std::shared_ptr<engine::StoreState> state) {
    return Store(std::move(state));
  }
  static Table MakeTable(std::shared_ptr<engine::TableHandle> handle) {
    return Table(std::move(handle));
  }
};

}  // namespace partkv

#endif  // PARTKV_API_FRONT_FRONT_ACCESS_H_
