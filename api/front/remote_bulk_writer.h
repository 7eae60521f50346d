// BulkWriter::Remote: a bulk write (partkv/bulk_writer.h) into a table that is not the local
// engine's — a remote store's — through the public Table alone: every row is checked as
// Table::Submit checks it (Table::ComputeKeys, then the table's limits), the rows are cut into
// the batches an Azure client would submit, and the batches go to Table::Submit on worker
// threads, at most BulkWriteOptions::max_batches_in_flight at once, those of one PartitionKey one
// after another.
//
// The batches wait in a window, in stream order, until acknowledged; the window's front is
// popped as it is acknowledged, so report().rows_written is always the longest acknowledged
// prefix. The window holds at most twice max_batches_in_flight batches: the calling thread waits
// while it is full. The first failure stops new batches at once (the worker that met it says so);
// the calling thread then waits for the batches in flight and settles the report from the window.
//
// validate_before_writing keeps each validated row, keys computed, as its JSON (EntityToJson) in
// an unlinked spill file (engine/local/bulk_spill.h), and Finish writes them from there in stream
// order: record = line:varint size:varint json_size:varint json (`size` the entity's in the
// table's size model, for cutting batches).
//
// Thread-safety: the public methods are called by one thread at a time (the BulkWriter's rule);
// the workers share the window, under mu_, with it.

#ifndef PARTKV_API_FRONT_REMOTE_BULK_WRITER_H_
#define PARTKV_API_FRONT_REMOTE_BULK_WRITER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <vector>

#include "engine/local/bulk_spill.h"
#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "engine/validation.h"
#include "partkv/bulk_writer.h"
#include "partkv/json.h"

namespace partkv {

// Hidden: its members name engine types, which libpartkv never exports.
struct __attribute__((visibility("hidden"))) BulkWriter::Remote {
  // REQUIRES: `options` passed BulkWriter::Create's checks.
  static Result<std::unique_ptr<Remote>> Create(const Table& table,
                                                const BulkWriteOptions& options);
  ~Remote();

  Status Add(const Entity& entity) PARTKV_EXCLUDES(mu_);
  Status AddJsonLines(std::string_view lines) PARTKV_EXCLUDES(mu_);
  Status Flush() PARTKV_EXCLUDES(mu_);
  Status Finish() PARTKV_EXCLUDES(mu_);
  const BulkWriteReport& report() const { return report_; }

 private:
  // One batch of consecutive rows of one PartitionKey, from the moment it is cut until it is
  // acknowledged or the writer stops.
  struct Pending {
    enum class State { kQueued, kInFlight, kWritten, kHeld, kFailed };
    Batch batch;
    std::string partition_key;
    uint64_t first_row = 0;       // stream position of its first row; the others follow
    std::vector<uint64_t> lines;  // each row's input line (0: from Add)
    State state = State::kQueued;
    Status status;                     // kHeld, kFailed: why
    std::vector<WriteResult> results;  // kWritten: the service's answers
  };

  Remote(const Table& table, const BulkWriteOptions& options, engine::Limits limits);

  // The writer's stop, or after Finish InvalidArgument; otherwise OK, and a held batch (after
  // Throttled or Busy) is submitted again.
  Status Check() PARTKV_EXCLUDES(mu_);
  // Checks one entity as Table::Submit would: computes its keys (Table::ComputeKeys) and
  // validates it against the table's limits; *size is its size in the table's size model.
  Status Validate(const Entity& entity, Entity* keyed, size_t* size) const;
  // A valid row as the stream's next: to the spill (validate_before_writing) or to a batch.
  // Throttled or Busy (a held batch) leave the row not taken.
  Status Take(Entity keyed, size_t size, uint64_t line) PARTKV_EXCLUDES(mu_);
  // A valid row into the open batch, submitting that batch first when the row cannot join it.
  Status Batched(Entity keyed, size_t size, uint64_t line) PARTKV_EXCLUDES(mu_);
  bool OpensBatch(const Entity& keyed, size_t size) const;
  // Moves the open batch into the window (waiting for room) for the workers.
  Status Submit() PARTKV_EXCLUDES(mu_);
  // Takes the lines AddJsonLines handed over until all are taken; resumable.
  Status DrainLines() PARTKV_EXCLUDES(mu_);
  // validate_before_writing: writes the spilled rows in stream order; resumable.
  Status WriteSpilled() PARTKV_EXCLUDES(mu_);

  enum class Until { kNow, kRoom, kAll };
  // Settles the window (pops its acknowledged front, reacts to a held or failed batch) and waits
  // until `until` holds: kNow not at all, kRoom room for one more batch, kAll every batch
  // acknowledged. Returns a held batch's status (Throttled, Busy) or the stop's error.
  Status Await(Until until) PARTKV_EXCLUDES(mu_);
  // Whether a batch of the window is in `state`.
  bool WindowHas(Pending::State state) const PARTKV_REQUIRES(mu_);
  // Counts the acknowledged front of the window as written, calling on_group_written for each
  // batch. Releases mu_ meanwhile.
  void PopWritten() PARTKV_REQUIRES(mu_);
  void CallBack(const Pending& batch);
  // report_'s throttling counts and also_written, from the window.
  void Publish() PARTKV_REQUIRES(mu_);
  // Stops the writer: no batch starts again; once those in flight are answered, the report is
  // settled from the window. The error is the first failed batch's when one failed (its bad row
  // the operation it names), else `error`, a bad row at `bad_line` when given.
  Status Halt(const Status& error, std::optional<uint64_t> bad_line) PARTKV_EXCLUDES(mu_);
  // Halt, called holding mu_, which it releases.
  Status HaltLocked(Status error, std::optional<uint64_t> bad_line) PARTKV_RELEASE(mu_);
  // Ends the writer at `error`, dropping every row not written (Halt's last step).
  Status Fail(const Status& error) PARTKV_EXCLUDES(mu_);
  // A worker: submits the window's next eligible batch until the writer ends.
  void Work() PARTKV_EXCLUDES(mu_);
  Pending* NextEligible() PARTKV_REQUIRES(mu_);
  static std::string RowName(uint64_t position, uint64_t line);

  Table table_;
  const BulkWriteOptions options_;
  const engine::Limits limits_;
  const std::shared_ptr<Clock> clock_;
  const OpType key_type_;  // the operation keys are computed for (kInsert or kInsertOrReplace)
  const size_t max_batch_rows_;
  const size_t max_batch_bytes_;
  const size_t window_size_;
  JsonReadOptions read_options_;
  BulkWriteReport report_;
  uint64_t first_line_ = 0;  // row 0's line
  bool finished_ = false;

  // The calling thread's: the batch being filled and its RowKeys and size; the rows given to
  // batches so far (their positions), the lines AddJsonLines handed over and not yet taken.
  std::unique_ptr<Pending> open_;
  std::unordered_set<std::string> open_row_keys_;
  size_t open_bytes_ = 0;
  uint64_t batched_rows_ = 0;
  std::string pending_;
  size_t pending_at_ = 0;
  uint64_t pending_line_ = 0;  // the line at pending_at_

  // validate_before_writing: the spill file, the records not yet appended to it, and while
  // Finish writes, the offset of the next record to take and the bytes read ahead.
  std::optional<engine::SpillFile> spill_;
  std::string spill_buffer_;
  uint64_t spill_read_ = 0;
  std::string spill_ahead_;
  size_t spill_ahead_at_ = 0;
  bool spill_closed_ = false;

  // The window, shared by the calling thread and the workers. A batch's state (and its status and
  // results) changes under mu_ too; its rows stay as they were cut, read by the worker that
  // submits them without the lock. (Fields of the Pending objects, which clang's annotations
  // cannot tie to the writer's mutex.)
  port::Mutex mu_;
  port::CondVar work_{&mu_};  // to the workers: a batch may be eligible, or they end
  port::CondVar done_{&mu_};  // to the calling thread: a batch was answered
  std::deque<std::unique_ptr<Pending>> window_ PARTKV_GUARDED_BY(mu_);
  size_t in_flight_ PARTKV_GUARDED_BY(mu_) = 0;
  // A batch is held: no batch starts until the next call.
  bool paused_ PARTKV_GUARDED_BY(mu_) = false;
  // The caller has been told of the pause (a call returned the held batch's Throttled or Busy).
  // A pause that began after the last call returned is told by the next call, which takes
  // nothing; the call after it resumes. So every pause is seen exactly once.
  bool pause_told_ PARTKV_GUARDED_BY(mu_) = false;
  // A batch failed, or the writer stops: no batch starts again.
  bool stopping_ PARTKV_GUARDED_BY(mu_) = false;
  bool ending_ PARTKV_GUARDED_BY(mu_) = false;  // the workers return
  uint64_t throttled_ PARTKV_GUARDED_BY(mu_) = 0;
  int64_t throttled_wait_micros_ PARTKV_GUARDED_BY(mu_) = 0;
  // The calling thread's (the workers never touch it).
  std::vector<std::thread> workers_;
};

}  // namespace partkv

#endif  // PARTKV_API_FRONT_REMOTE_BULK_WRITER_H_
