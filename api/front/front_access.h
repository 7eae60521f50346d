// FrontAccess: the one way from a front object (partkv::Store, partkv::Table) to the local
// engine object behind it (engine/local/local_backend.h), for the front classes' own implementation
// (api/front/), the engine's tests and the benchmarks that measure internals. Like LevelDB's
// WriteBatchInternal, it is a friend of the classes it opens and is not installed: applications see
// only the public headers, and libpartkv.so exports no engine symbol.

#ifndef PARTKV_API_FRONT_FRONT_ACCESS_H_
#define PARTKV_API_FRONT_FRONT_ACCESS_H_

#include <memory>
#include <utility>

#include "engine/local/local_backend.h"
#include "engine/local/store_state.h"
#include "engine/local/table_handle.h"
#include "partkv/store.h"
#include "partkv/table.h"

namespace partkv {

class FrontAccess {
 public:
  // The local engine behind a store or table opened from a directory. REQUIRES: local (the
  // engine's tests and the benchmarks of internals open local stores only).
  static engine::StoreState& Of(const Store& store) { return **LocalOf(store); }
  static const std::shared_ptr<engine::StoreState>& Shared(const Store& store) {
    return *LocalOf(store);
  }
  static engine::TableHandle& Of(const Table& table) { return *LocalOf(table); }

  // The same, or nullptr when the store or table is not local.
  static const std::shared_ptr<engine::StoreState>* LocalOf(const Store& store) {
    return store.backend_->local();
  }
  static engine::TableHandle* LocalOf(const Table& table) { return table.backend_->local(); }

  static Store MakeStore(std::shared_ptr<engine::StoreState> state) {
    return Store(std::make_shared<engine::LocalStore>(std::move(state)));
  }
  static Table MakeTable(std::shared_ptr<engine::TableBackend> backend) {
    return Table(std::move(backend));
  }
  static Table MakeTable(std::shared_ptr<engine::TableHandle> handle) {
    return Table(std::make_shared<engine::LocalTable>(std::move(handle)));
  }
};

}  // namespace partkv

#endif  // PARTKV_API_FRONT_FRONT_ACCESS_H_
