// BulkGroup and GroupWriter: one group of a bulk write (partkv/bulk_writer.h) — sealed rows
// (engine/local/row_sealer.h) of any PartitionKeys in stream order — and its commit as one atomic
// RocksDB write.
//
// Batches. Inside a group, rows fall into *batches* exactly as Azure Table clients would submit
// them: consecutive rows of one PartitionKey, at most the table's batch limits (100 operations
// and 4 MiB by Azure's size formula by default), never two rows with one RowKey (a repeated row
// starts a new batch, so the later one wins an upsert). A batch never spans two groups. Batches
// decide what a conflict leaves written (below) and are counted for reports.
//
// Rows are sorted by key inside a group, so a group's order need not be the stream's: a group
// of rows taken in key order across the whole stream (engine/local/bulk_stage.h) has no batches of
// its own, and a conflict in it leaves the whole group unwritten.
//
// GroupWriter::Commit does for the whole group what TableHandle::Submit does for one batch, once:
//   1. orders the rows by their full encoded key (partition prefix, PartitionKey, RowKey) —
//      BulkGroup::Prepare, which the thread that fills a group may do beforehand — so that the
//      group costs one MultiGet per physical partition with sorted input, and a WriteBatch whose
//      memtable inserts walk forward;
//   2. with throttling emulation, charges each logical partition (or physical, by the profile's
//      scope) the write cost of its rows — no more than its bucket's capacity, as the group was
//      cut (GroupBudget) — and a refusal is Throttled with the retry-after, nothing written;
//   3. issues one tick per row (StoreState::IssueTicks), in the group's order: row i gets
//      Timestamp and ETag version first_tick + i;
//   4. locks the distinct row-lock stripes of the group in ascending order (as every batch does,
//      so group and batch writers never deadlock), reads the current rows with MultiGet (not for
//      InsertOrReplace, which does not depend on them), decides every row, and writes one
//      WriteBatch through StoreState::Write (the bounded write path; WriteOptions::sync);
//   5. counts each logical partition's writes for the table's statistics.
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
// Thread-safety: a BulkGroup and a GroupWriter are used by one thread. Commits are safe against
// any concurrent writer of the same table (the row locks).

#ifndef PARTKV_ENGINE_LOCAL_BULK_GROUP_H_
#define PARTKV_ENGINE_LOCAL_BULK_GROUP_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/local/change_feed.h"
#include "engine/local/row_sealer.h"
#include "engine/ttl.h"
#include "engine/validation.h"
#include "partkv/batch.h"
#include "partkv/status.h"
#include "rocksdb/db.h"
#include "rocksdb/write_batch.h"

namespace partkv::engine {

class SharedTable;
class TableHandle;

// Cuts a stream of rows into batches (above). Keeps copies of what it needs of the open batch.
class BatchCutter {
 public:
  // `limits`: the table's. REQUIRES: they outlive the cutter.
  explicit BatchCutter(const Limits& limits) : limits_(limits) {}

  // Takes the stream's next row; true when it opens a new batch.
  bool Add(const SealedRow& row);
  // The next row opens a new batch.
  void Reset() { rows_ = 0; }
  // How many rows of the open batch came before the last row taken (0 for a batch's first).
  size_t offset() const { return rows_ - 1; }

 private:
  // Whether the open batch has a row with `row_key`. Rows usually come sorted, so the largest
  // RowKey settles most cases without a scan.
  bool HasRow(std::string_view row_key) const;

  const Limits& limits_;
  size_t rows_ = 0;
  uint64_t size_ = 0;  // in the table's size model
  std::string partition_key_, max_row_key_;
  std::string row_keys_;  // every RowKey of the batch, back to back
  std::vector<size_t> row_key_ends_;
};

// Lookups in string-keyed maps by string_view, without building a std::string.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

// With throttling emulation, what a group charges each budget (a logical partition, or a
// physical one when the profile budgets those): a group may charge a budget at most its bucket's
// capacity, so that a group waits for its partitions' budgets to refill rather than taking more
// than a burst at once and running them into debt (engine/local/throttle.h). A row alone may cost
// more, as a single write may.
class GroupBudget {
 public:
  // REQUIRES: data.throttler() is not null; `data` outlives the budget.
  explicit GroupBudget(const SharedTable& data);
  // Whether `row` fits its budget's room in the group.
  bool Fits(const SealedRow& row);
  void Add(const SealedRow& row);
  void Clear() { spent_.clear(); }

 private:
  // The budget of `row`: its PartitionKey, or its physical partition's index (4 bytes).
  std::string_view Key(const SealedRow& row);

  const SharedTable& data_;
  const bool by_physical_;
  const double capacity_;
  std::unordered_map<std::string, double, StringHash, std::equal_to<>> spent_;
  std::string key_;
};

class BulkGroup {
 public:
  // A group of rows of `data`'s table. With `cut_batches` the group cuts its rows into batches
  // by the table's limits; without, the whole group is one batch, so that a conflict leaves all
  // of it unwritten (for rows that do not come in stream order). With throttling emulation on
  // the table, the group ends before a row that does not fit its budget (GroupBudget).
  // REQUIRES: `data` outlives the group.
  BulkGroup(const SharedTable& data, bool cut_batches);

  // Whether `row` belongs in the next group: this one is not empty and holds `max_rows` rows,
  // `max_bytes` of sealed rows would be exceeded with it, or its budget has no room for it.
  bool Full(const SealedRow& row, size_t max_rows, size_t max_bytes) {
    return !rows_.empty() &&
           (rows_.size() >= max_rows || bytes_.size() + row.bytes().size() > max_bytes ||
            (budget_ && !budget_->Fits(row)));
  }
  // Appends a copy of `row` (parsed by the sealer the group will be committed with), the row's
  // 0-based position in the stream and its 1-based input line (0: none).
  void Append(const SealedRow& row, uint64_t position, uint64_t line);
  void Clear();

  size_t rows() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  size_t bytes() const { return bytes_.size(); }
  size_t batches() const { return batch_starts_.size(); }
  // Row i of the group (0 <= i < rows()): its sealed bytes, stream position, input line, batch.
  std::string_view row(size_t i) const {
    return std::string_view(bytes_).substr(rows_[i].offset, rows_[i].length);
  }
  uint64_t position(size_t i) const { return positions_[i]; }
  const std::vector<uint64_t>& positions() const { return positions_; }
  uint64_t line(size_t i) const { return rows_[i].line; }
  size_t batch_of(size_t i) const { return rows_[i].batch; }
  // The index of batch b's first row.
  size_t batch_start(size_t b) const { return batch_starts_[b]; }

  // Parses every row with `sealer` and works out its physical partition, its full key and the
  // rows' order by (key, index): the group's work that needs no lock, done by the thread that
  // filled the group, or by GroupWriter::Commit when it has not been. Corruption for a damaged
  // row. REQUIRES: the group is not changed afterwards, but by Clear.
  Status Prepare(const SharedTable& data, const RowSealer& sealer);
  bool prepared() const { return prepared_; }
  // Once prepared: row i parsed, its physical partition and full key; the rows' indexes in key
  // order (equal keys in stream order).
  const SealedRow& parsed(size_t i) const { return parsed_[i]; }
  uint32_t physical(size_t i) const { return physical_[i]; }
  std::string_view key(size_t i) const { return keys_[i]; }
  const std::vector<std::string_view>& keys() const { return keys_; }
  const std::vector<uint32_t>& order() const { return order_; }

 private:
  struct Row {
    size_t offset = 0;
    uint32_t length = 0;
    uint32_t batch = 0;
    uint64_t line = 0;
  };

  std::optional<BatchCutter> cutter_;
  std::optional<GroupBudget> budget_;
  std::string bytes_;  // the sealed rows, back to back
  std::vector<Row> rows_;
  std::vector<uint64_t> positions_;
  std::vector<size_t> batch_starts_;
  // Prepare's: kept from group to group, so a reused group allocates nothing.
  bool prepared_ = false;
  std::vector<SealedRow> parsed_;
  std::vector<uint32_t> physical_;
  std::string key_buffer_;
  std::vector<size_t> key_end_;
  std::vector<std::string_view> keys_;
  std::vector<uint32_t> order_;
};

// The AlreadyExists of an Insert of a key that an earlier row of the same bulk write inserts.
Status RepeatedInsert(std::string_view pk, std::string_view rk);

// What GroupWriter::Commit did.
struct GroupOutcome {
  size_t written = 0;             // the group's first `written` rows are in the store, no other
  size_t batches = 0;             // the batches they make
  int64_t first_tick = 0;         // row i < written has Timestamp and ETag version first_tick + i
  std::optional<size_t> bad_row;  // the first conflicting row (kInsert), by index in the group
  // OK; the bad row's conflict (AlreadyExists, without the row's position); or why nothing was
  // written (Throttled or Busy: the group may be committed again; anything else: it failed).
  Status status;
};

// Commits the groups of one bulk write, one after another, keeping its buffers (the rows' keys,
// their order, the WriteBatch) from group to group. The table's statistics of the rows written
// are gathered per logical partition over a few groups and recorded every 16 groups, sooner
// when 65,536 partitions have gathered, at RecordStatistics() and when the writer goes: a round
// robin over thousands of PartitionKeys then costs the statistics a call per partition every 16
// groups, not one per partition per group.
class GroupWriter {
 public:
  // REQUIRES: `sealer` was made by `table`; both outlive the writer. `mode`: kInsert,
  // kInsertOrReplace or kInsertOrMerge.
  GroupWriter(TableHandle& table, const RowSealer& sealer, OpType mode, bool sync);
  ~GroupWriter() { RecordStatistics(); }
  GroupWriter(const GroupWriter&) = delete;
  GroupWriter& operator=(const GroupWriter&) = delete;

  // Commits `group`, whose rows this writer's sealer sealed (preparing it first if need be).
  GroupOutcome Commit(BulkGroup& group);
  // Records the statistics gathered so far.
  void RecordStatistics();

 private:
  Status ChargeRuns(const BulkGroup& g);
  Status ReadCurrent(const BulkGroup& g);
  std::optional<size_t> FirstConflict(const BulkGroup& g, Status* error) const;
  // Whether row order[j]'s current value (read by ReadCurrent) is an entity: present and not
  // expired under expiry_.
  bool Exists(size_t j) const {
    return statuses_[j].ok() && !expiry_.ExpiredValue(values_[j].ToStringView());
  }
  // `feed`: where the group's change feed entries go, or null when the table keeps none.
  Status Build(const BulkGroup& g, size_t cut, int64_t first_tick, int64_t now, FeedEntries* feed);
  void GatherStatistics(const BulkGroup& g, size_t cut);

  TableHandle& table_;
  const RowSealer& sealer_;
  const OpType mode_;
  const bool sync_;
  // For the group at hand: the current values in key order (kInsert, kInsertOrMerge), the batch.
  std::vector<rocksdb::Slice> slices_;
  std::vector<rocksdb::PinnableSlice> values_;
  std::vector<rocksdb::Status> statuses_;
  // With a change feed: the entry by reference of each row's stored version (as values_).
  std::vector<std::optional<FeedVersion>> versions_;
  Expiry expiry_;  // the table's time to live at the group being committed
  rocksdb::WriteBatch batch_;
  // Statistics not yet recorded: rows and bytes by physical partition (4 bytes) and
  // PartitionKey, and the groups they come from.
  struct Written {
    uint32_t physical = 0;
    uint64_t rows = 0, bytes = 0;
  };
  std::unordered_map<std::string, Written, StringHash, std::equal_to<>> statistics_;
  size_t statistics_groups_ = 0;
  std::string statistics_key_;
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_BULK_GROUP_H_
