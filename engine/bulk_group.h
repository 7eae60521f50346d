// BulkGroup and CommitGroup: one group of a bulk write (partkv/bulk_writer.h) — sealed rows
// (engine/row_sealer.h) of any PartitionKeys in stream order — and its commit as one atomic
// RocksDB write.
//
// Batches. Inside a group, rows fall into *batches* exactly as Azure Table clients would submit
// them: consecutive rows of one PartitionKey, at most the table's batch limits (100 operations
// and 4 MiB by Azure's size formula by default), never two rows with one RowKey (a repeated row
// starts a new batch, so the later one wins an upsert). A batch never spans two groups. Batches
// decide what a conflict leaves written (below) and are counted for reports.
//
// CommitGroup does for the whole group what TableHandle::Submit does for one batch, once:
//   1. orders the rows by their full encoded key (partition prefix, PartitionKey, RowKey), so
//      rows in any order cost what sorted rows cost: one MultiGet per physical partition with
//      sorted input, and a WriteBatch whose memtable inserts walk forward;
//   2. with throttling emulation, charges each logical partition (or physical, by the profile's
//      scope) the write cost of its rows; a refusal is Throttled with the retry-after, nothing
//      written;
//   3. issues one tick per row (StoreState::IssueTicks) in stream order: row i gets Timestamp and
//      ETag version first_tick + i;
//   4. locks the distinct row-lock stripes of the group in ascending order (as every batch does,
//      so group and batch writers never deadlock), reads the current rows with MultiGet (not for
//      InsertOrReplace, which does not depend on them), decides every row, and writes one
//      WriteBatch through StoreState::Write (the bounded write path; WriteOptions::sync);
//   5. records each logical partition's writes in the table's statistics.
//
// Modes: kInsert fails a row whose key exists in the store or on an earlier row of the group
// (AlreadyExists); kInsertOrReplace writes every row whole (of two rows with one key, the later
// wins); kInsertOrMerge merges each row's properties into the stored entity and into the rows
// with its key before it.
//
// Conflicts (kInsert only). The group is then written up to the start of the batch of its first
// conflicting row (in stream order): every batch before it, nothing from it on — what submitting
// the batches one after another would have left. Throttled, Busy and every failure that is not
// a row's conflict write nothing.
//
// Thread-safety: a BulkGroup is used by one thread. CommitGroup is safe against any concurrent
// writer of the same table (the row locks).

#ifndef PARTKV_ENGINE_BULK_GROUP_H_
#define PARTKV_ENGINE_BULK_GROUP_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/row_sealer.h"
#include "engine/validation.h"
#include "partkv/batch.h"
#include "partkv/status.h"

namespace partkv::engine {

class TableHandle;

class BulkGroup {
 public:
  // `limits`: the table's, whose batch limits cut the batches. REQUIRES: they outlive the group.
  explicit BulkGroup(const Limits& limits) : limits_(limits) {}

  // Whether `row` belongs in the next group: this one is not empty and holds `max_rows` rows, or
  // `max_bytes` of sealed rows would be exceeded with it.
  bool Full(const SealedRow& row, size_t max_rows, size_t max_bytes) const {
    return !rows_.empty() && (rows_.size() >= max_rows || bytes_.size() + row.bytes().size() > max_bytes);
  }
  // Appends a copy of `row` (parsed by the sealer the group will be committed with), the row's
  // 0-based position in the stream and its 1-based input line (0: none).
  void Append(const SealedRow& row, uint64_t position, uint64_t line);
  void Clear();

  size_t rows() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  size_t bytes() const { return bytes_.size(); }
  size_t batches() const { return batch_starts_.size(); }
  // The stream position of the group's first row.
  uint64_t first_position() const { return first_position_; }
  // Row i of the group (0 <= i < rows()): its sealed bytes, input line, batch.
  std::string_view row(size_t i) const { return std::string_view(bytes_).substr(rows_[i].offset, rows_[i].length); }
  uint64_t line(size_t i) const { return rows_[i].line; }
  size_t batch_of(size_t i) const { return rows_[i].batch; }
  // The index of batch b's first row.
  size_t batch_start(size_t b) const { return batch_starts_[b]; }

 private:
  struct Row {
    size_t offset = 0;
    uint32_t length = 0;
    uint32_t batch = 0;
    uint64_t line = 0;
  };
  // Whether the last batch already has a row with `row_key`. Rows usually come sorted, so the
  // largest RowKey settles most cases without a scan.
  bool BatchHasRow(std::string_view row_key) const;

  const Limits& limits_;
  std::string bytes_;  // the sealed rows, back to back
  std::vector<Row> rows_;
  uint64_t first_position_ = 0;
  std::vector<size_t> batch_starts_;
  // The last batch: its PartitionKey and size in the table's size model, its largest RowKey and
  // each row's RowKey (offset, size in bytes_).
  std::string batch_pk_, batch_max_row_key_;
  uint64_t batch_size_ = 0;
  std::vector<std::pair<size_t, size_t>> batch_row_keys_;
};

// What CommitGroup did.
struct GroupOutcome {
  size_t written = 0;   // the group's first `written` rows are in the store, no other
  size_t batches = 0;   // the batches they make
  int64_t first_tick = 0;  // row i < written has Timestamp and ETag version first_tick + i
  std::optional<size_t> bad_row;  // the first conflicting row (kInsert), by index in the group
  // OK; the bad row's conflict (AlreadyExists, without the row's position); or why nothing was
  // written (Throttled or Busy: the group may be committed again; anything else: it failed).
  Status status;
};

// Commits `group`, whose rows `sealer` sealed, in `mode` (kInsert, kInsertOrReplace,
// kInsertOrMerge). REQUIRES: the sealer was made by `table`.
GroupOutcome CommitGroup(TableHandle& table, const RowSealer& sealer, OpType mode,
                         const BulkGroup& group, bool sync);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_BULK_GROUP_H_
