// TableHandle: the engine side of a partkv::Table handle — entity reads, single writes and atomic
// batches on one table, with the uniqueness, ETag and Timestamp rules of docs/design.md
// "Semantics".
//
// Concurrency: a write locks the stripe of its row (StoreState::Stripe), reads the current
// version with a whole-key-bloom-filtered Get, checks its condition and writes, all under the
// lock; so exactly one of N racing inserts of a key succeeds. A batch locks all its stripes in
// ascending order, reads every row with one MultiGet, checks every operation, then commits one
// RocksDB WriteBatch: all or nothing.

#ifndef PARTKV_ENGINE_LOCAL_TABLE_HANDLE_H_
#define PARTKV_ENGINE_LOCAL_TABLE_HANDLE_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/local/row_sealer.h"
#include "engine/local/shared_table.h"
#include "engine/local/store_state.h"
#include "partkv/batch.h"
#include "partkv/if_match.h"
#include "partkv/options.h"
#include "partkv/table_info.h"

namespace partkv::engine {

class TableHandle {
 public:
  TableHandle(std::shared_ptr<StoreState> store, std::shared_ptr<SharedTable> data)
      : store_(std::move(store)), data_(std::move(data)) {}

  StoreState& store() const { return *store_; }
  SharedTable& data() const { return *data_; }
  const std::shared_ptr<StoreState>& store_ptr() const { return store_; }

  // One write of any kind (a one-operation batch, without the batch's bookkeeping).
  Result<WriteResult> Write(OpType type, const Entity& entity, const IfMatch& if_match,
                            const WriteOptions& options);
  Result<Entity> Get(std::string_view pk, std::string_view rk) const;
  Result<std::vector<WriteResult>> Submit(const Batch& batch, const WriteOptions& options);
  // Submit after key schemes have been applied.
  Result<std::vector<WriteResult>> SubmitKeyed(const Batch& batch, const WriteOptions& options);

  // Bulk writes of rows validated beforehand (engine/local/row_sealer.h). A sealer for `type`:
  // InvalidArgument unless it is kInsert or kInsertOrReplace. REQUIRES: *this outlives it.
  Result<RowSealer> NewRowSealer(OpType type) const;
  // Writes `rows` as one atomic batch, under Submit's batch rules: at most the limit's
  // operations and bytes, one PartitionKey, distinct RowKeys; the Status of a failure names the
  // failing row's index. InvalidArgument when `sealer` was made for another table or a row was
  // not parsed by `sealer`. REQUIRES: the bytes the rows view are alive and unchanged.
  Status SubmitSealed(const RowSealer& sealer, const std::vector<SealedRow>& rows,
                      const WriteOptions& options);

  // Point read by natural attributes through the table's key scheme.
  Result<Entity> GetByAttributes(const Entity& attributes) const;

  // When the table has a key scheme and `entity` leaves a key empty, sets *computed to a copy
  // with the key computed and returns a pointer to it; else returns &entity.
  Result<const Entity*> WithSchemeKeys(OpType type, const Entity& entity,
                                       std::optional<Entity>* computed) const;

  // NotFound once the table has been dropped.
  Status CheckLive() const;

 private:
  std::shared_ptr<StoreState> store_;
  std::shared_ptr<SharedTable> data_;
};

// The AlreadyExists of an Insert of the existing row (pk, rk), as every write reports it.
Status EntityExists(std::string_view pk, std::string_view rk);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_TABLE_HANDLE_H_
