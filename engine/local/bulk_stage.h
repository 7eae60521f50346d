// BulkStage: the rows of a bulk write that validates everything before writing anything
// (BulkWriteOptions::validate_before_writing), staged on disk and read back in key order, so
// that the write goes through the table in one ascending pass whatever order the rows came in.
//
// Why: rows whose PartitionKeys are interleaved (a round robin over thousands of devices) land
// all over every memtable and make every flushed file overlap every other; RocksDB then spends
// its time finding insert positions and compacting. Sorted once, on the way to disk, the same
// rows cost what rows sorted by key cost.
//
// Rows come in stream order (Add). The stage cuts them into batches as the stream goes
// (engine/local/bulk_group.h: consecutive rows of one PartitionKey within the table's batch
// limits), gives each its full encoded key (partition prefix, PartitionKey, RowKey) and keeps it in
// a run buffer of about 32 MiB; a full buffer is sorted by (key, position) and appended to the
// spill file as one run. Read() merges the runs (more than 64 of them are first merged 64 at a time
// into longer runs, appended to the same file, which so holds up to twice the rows for an
// input of more than 2 GiB of encoded rows): every row once, in (key, position) order.
//
//   entry = key_len:varint key physical:varint position:varint batch:varint batch_offset:varint
//           line:varint sealed_row
//
// `batch` is the row's batch's ordinal in the stream, `batch_offset` how many rows of that batch
// come before it: batch start = position - batch_offset. The sealed row (engine/local/row_sealer.h)
// carries its seal, so a damaged entry is Corruption, never a bad row written. The format lives
// only as long as one bulk write.
//
// FindFirstConflict reads the stage once to find the first row, in stream order, that an Insert
// may not write, so that the write can leave out exactly the batches from it on.
//
// Thread-safety: used by one thread at a time (a GroupFeed's own thread while the feed reads
// it). REQUIRES: the table and the sealer outlive the stage.

#ifndef PARTKV_ENGINE_LOCAL_BULK_STAGE_H_
#define PARTKV_ENGINE_LOCAL_BULK_STAGE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/local/bulk_group.h"
#include "engine/local/bulk_spill.h"
#include "engine/local/row_sealer.h"
#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "partkv/result.h"

namespace partkv::engine {

class SharedTable;
class TableHandle;

// One staged row as read back: views into the reader's buffers, valid until its next Next().
struct StagedRow {
  std::string_view key;  // the full encoded key
  uint32_t physical = 0;
  uint64_t position = 0;
  uint64_t batch = 0;
  uint64_t batch_offset = 0;
  uint64_t line = 0;
  SealedRow row;
  std::string_view bytes;  // the whole entry
};

class BulkStage {
 public:
  static constexpr size_t kRunBytes = 32u << 20;
  static constexpr size_t kFanIn = 64;

  // A stage spilling to a new unlinked file in `directory` ($TMPDIR, else /tmp, when empty),
  // sorting runs of about `run_bytes` and merging at most `fan_in` (>= 2) at once. IOError when
  // the file cannot be made.
  static Result<std::unique_ptr<BulkStage>> Create(const TableHandle& table,
                                                   const RowSealer& sealer,
                                                   const std::string& directory,
                                                   size_t run_bytes = kRunBytes,
                                                   size_t fan_in = kFanIn);
  BulkStage(const BulkStage&) = delete;
  BulkStage& operator=(const BulkStage&) = delete;

  // Takes the stream's next row (parsed by the sealer) at stream `position`, from input `line`
  // (0: none). IOError when a run cannot be spilled. REQUIRES: not closed.
  Status Add(const SealedRow& row, uint64_t position, uint64_t line);
  // Ends the stream: spills the last run.
  Status Close();

  uint64_t rows() const { return rows_; }
  uint64_t batches() const { return batches_; }
  // Runs spilled, and runs made by merging others (for tests).
  size_t runs() const { return runs_.size(); }
  uint64_t merges() const { return merges_; }

  class Reader;
  // A reader of every staged row in (key, position) order. REQUIRES: closed. Readers may be made
  // one after another; each reads everything.
  Result<std::unique_ptr<Reader>> Read();

 private:
  struct Run {
    uint64_t offset = 0, size = 0;
  };
  BulkStage(const TableHandle& table, const RowSealer& sealer, SpillFile file, size_t run_bytes,
            size_t fan_in);
  Status SpillRun();
  Status MergeRuns(size_t count);

  const TableHandle& table_;
  const RowSealer& sealer_;
  SpillFile file_;
  const size_t run_bytes_, fan_in_;
  uint64_t merges_ = 0;
  std::vector<Run> runs_;
  BatchCutter cutter_;
  uint64_t rows_ = 0, batches_ = 0;
  // The run being filled: entries back to back, and where each one's key is.
  struct Entry {
    size_t begin = 0, size = 0, key_begin = 0, key_size = 0;
    uint64_t position = 0;
  };
  std::string buffer_;
  std::vector<Entry> entries_;
  std::string key_;                 // the row at hand's key
  std::string last_partition_key_;  // and its physical partition: hashed once for its rows
  uint32_t last_physical_ = 0;
  bool closed_ = false;
};

class BulkStage::Reader {
 public:
  // The next row into *row; false after the last. Corruption for a damaged entry, IOError when
  // the spill file cannot be read.
  Result<bool> Next(StagedRow* row);

 private:
  friend class BulkStage;
  struct Cursor {
    Run run;
    uint64_t consumed = 0;  // bytes of the run read into `buffer` so far
    std::string buffer;
    size_t pos = 0;  // the current entry starts at buffer[pos]
    StagedRow current;
  };
  Reader(const SpillFile& file, const RowSealer& sealer, const std::vector<Run>& runs);
  // Reads cursor c's next entry into its `current`; false when its run is done.
  Result<bool> Load(Cursor& c);
  bool After(size_t a, size_t b) const;  // heap order: cursor a's row after cursor b's

  const SpillFile& file_;
  const RowSealer& sealer_;
  std::vector<Cursor> cursors_;
  std::vector<size_t> heap_;
  std::optional<size_t> last_;  // the cursor of the row returned last
  bool started_ = false;
};

// Groups of staged rows in key order, filled and prepared (BulkGroup::Prepare) on a thread of
// its own while the caller writes the ones before: the caller's thread does only what needs the
// row locks. The rows at stream positions from `cut` on are left out. At most three groups
// exist at a time: the caller's, one ready, one being filled.
//
// Thread-safety: Next and Done are called by one thread. REQUIRES: the stage, the table and the
// sealer outlive the feed; nothing else reads the stage meanwhile.
class GroupFeed {
 public:
  GroupFeed(BulkStage& stage, const SharedTable& data, const RowSealer& sealer, uint64_t cut,
            size_t max_rows, size_t max_bytes);
  ~GroupFeed();
  GroupFeed(const GroupFeed&) = delete;
  GroupFeed& operator=(const GroupFeed&) = delete;

  // The next group, prepared; nullptr after the last. Corruption or IOError when the stage
  // cannot be read. The group stays the caller's until Done.
  Result<BulkGroup*> Next() PARTKV_EXCLUDES(mu_);
  // Hands a group back (written, or given up), for reuse.
  void Done(BulkGroup* group) PARTKV_EXCLUDES(mu_);
  // The input line of the row at position `cut`, once the feed has passed it (0 before).
  uint64_t cut_line() const PARTKV_EXCLUDES(mu_);

 private:
  void Run() PARTKV_EXCLUDES(mu_);
  Status Fill() PARTKV_EXCLUDES(mu_);

  BulkStage& stage_;
  const SharedTable& data_;
  const RowSealer& sealer_;
  const uint64_t cut_;
  const size_t max_rows_, max_bytes_;
  mutable port::Mutex mu_;
  port::CondVar changed_{&mu_};  // signalled on every change of the fields mu_ guards
  std::vector<std::unique_ptr<BulkGroup>> groups_;       // owns them all; set by the constructor
  std::vector<BulkGroup*> free_ PARTKV_GUARDED_BY(mu_);  // groups to fill
  std::deque<BulkGroup*> ready_ PARTKV_GUARDED_BY(mu_);  // prepared, in key order
  // The feed has read every row (or failed: status_).
  bool done_ PARTKV_GUARDED_BY(mu_) = false;
  bool stop_ PARTKV_GUARDED_BY(mu_) = false;
  Status status_ PARTKV_GUARDED_BY(mu_);
  uint64_t cut_line_ PARTKV_GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

// The first row of the staged stream (in stream order) that an Insert may not write — its key
// exists in the table, or an earlier row of the stream has it — with that row's error, as the
// write would report it. Reads the table without row locks: a row that comes to exist later is
// found when its group is written.
struct StagedConflict {
  uint64_t position = 0, batch = 0, batch_offset = 0, line = 0;
  Status error;
};
Result<std::optional<StagedConflict>> FindFirstConflict(BulkStage& stage, const TableHandle& table);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_BULK_STAGE_H_
