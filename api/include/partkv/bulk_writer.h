// partkv::BulkWriter — loads a stream of entities, in any key order, into one table: each row is
// its own Insert (or upsert) with Azure Table's rules, written many thousands of rows at a time
// in atomic groups that may span any number of PartitionKeys.
//
//   auto writer = partkv::BulkWriter::Create(table);
//   if (!writer.ok()) { ...writer.status()... }
//   for (const partkv::Entity& e : entities) {
//     if (!writer->Add(e).ok()) break;  // the first bad row: writer->report() says which
//   }
//   partkv::Status s = writer->Finish();
//   // writer->report().rows_written: the rows of the stream that are in the table
//
// Rows. A row is an Insert (BulkWriteOptions::mode, the default), an InsertOrReplace or an
// InsertOrMerge, checked as Table::Insert checks one: a table with a key scheme computes a
// missing key; the table's profile limits apply (keys, properties, sizes); an Insert of a row
// whose key exists — in the table, or on an earlier row of the stream — is AlreadyExists. Of
// two upserts of one key the later wins (a merge merges into what the earlier one left). Every
// row gets its own Timestamp and ETag, increasing in the order the rows are written.
//
// Positions. Rows are numbered from 0 in the order they are given, by Add and AddJsonLines
// alike (blank lines are not rows); lines are numbered from 1 over all AddJsonLines calls
// (blank lines included). Error messages name a row by its line ("line 12: ...") when it came
// from AddJsonLines, else by its position ("row 11: ...").
//
// Groups. Rows are written in groups of at most max_group_rows rows and max_group_bytes bytes,
// each one atomic RocksDB write of any number of PartitionKeys, its rows sorted by key: a reader
// sees a group whole or not at all, and after a crash every group the writer reported written
// (report(), on_group_written) is there whole; no group is ever half there. Row locks are taken
// per group as batches take theirs, so a bulk write may run beside any other writer; a group of
// thousands of rows holds most of the store's 4,096 lock stripes while it is written (tens of
// milliseconds), and other writers of the store wait meanwhile.
//
// Batches. The rows of the stream form the batches an Azure Table client would submit:
// consecutive rows of one PartitionKey, at most the table's batch limits (100 operations and
// 4 MiB by default), never one row twice. They decide what a conflict leaves written (below),
// and are counted.
//
// Two ways to write:
//   - Streaming (the default): a group is consecutive rows of the stream, written once it is
//     full. The rows written are always the stream's first report().rows_written rows.
//   - validate_before_writing: every row is validated, and checked for conflicts, before any is
//     written. Meanwhile the rows wait on disk (an unlinked spill file of about their encoded
//     size, typically two thirds of their JSON), sorted by key on the way; Finish then writes
//     them in one ascending pass over the table's keys, so rows whose PartitionKeys are
//     interleaved cost what rows sorted by key cost, in the writer and in the table's storage
//     alike. A group is then consecutive keys, and the groups reported during Finish are not the
//     stream's first rows; once Finish has returned, the rows written are again the stream's first
//     report().rows_written.
//
// The first bad row stops the writer, and every later call returns its error. A row is bad when
//   - it fails validation: found when it is added (for AddJsonLines, possibly on a later call,
//     as lines are validated on worker threads). Streaming leaves the rows of its group — every
//     row added since the last group was written — unwritten, earlier groups written;
//     validate_before_writing writes nothing.
//   - it conflicts (an Insert of a key that exists, in the table or on an earlier row): the rows
//     before its batch are written and nothing from its batch on, which is what submitting the
//     stream's batches one after another leaves. Streaming finds the conflict when the row's
//     group is written, and writes the group up to the batch; validate_before_writing finds it
//     before writing anything, then writes the rows before the batch.
// report() names the bad row and its error. One exception to the rows written being the
// stream's first ones: with validate_before_writing, a row whose key another writer inserts
// after the check, before the row's group is written, fails that group (none of it is written)
// and stops the writer, leaving the groups written before it (report().resume_line is then 0).
//
// Throttling emulation (partkv/profile.h): a group charges each partition the cost of its rows,
// and holds no more rows of one partition than its budget's burst (2,000 entities for
// azure-table), so that a bulk write goes at the pace the service allows. A group that a
// partition's budget refuses is not written. With retry_throttled the writer waits the retry-after
// and tries again, as the cloud SDKs do; without it, or once the policy gives up, the call returns
// Throttled having taken nothing: make the same call again after retry_after(). Busy (the storage
// engine held writes back too long) is returned the same way.
//
// Statistics (Table::Statistics) count every row written, per partition; the writer records
// them every 16 groups and at Flush and Finish, so a reader during a bulk write sees them late.
//
// Memory stays bounded whatever the stream's length: the group being filled and, while it is
// written, its WriteBatch; for AddJsonLines two blocks per worker thread; with
// validate_before_writing, a 32 MiB sorting buffer while rows are taken, then three groups while
// Finish writes (one written, one ready, one being read from the spill file).
//
// On a remote table (a store opened from a connection string; docs/remote.md) the same stream
// is written as the batches above, each one Table::Submit — the entity group transactions an
// Azure client would send — up to max_batches_in_flight of them at once, each on a worker
// thread of the writer's own. What differs:
//   - A group is one batch: groups_written counts batches, on_group_written is called once per
//     batch acknowledged, in stream order, with the Timestamps and ETags the service gave.
//     max_group_rows and max_group_bytes bound a batch further when they are below the table's
//     batch limits (max_group_bytes then counts the table's size model, not encoded bytes).
//   - Batches of one PartitionKey are submitted one after another, each once the one before it
//     is acknowledged, so that rows of one key are written in stream order (an upsert's later
//     row wins; an Insert repeating an earlier row's key fails at the later row); batches of
//     different PartitionKeys overlap. At most twice max_batches_in_flight batches wait for
//     their acknowledgement; Add waits while that many do.
//   - A conflict, or any other failure of a batch, stops the writer: from then on no batch
//     starts, the batches in flight finish, and the batches not started are dropped. Batches
//     acknowledged out of order make the rows written not always a prefix of the stream:
//     report().rows_written counts the longest prefix of acknowledged rows (every batch before
//     the first batch not written), and report().also_written lists, exactly, the rows written
//     past it (the batches that were in flight beside the one that failed). A batch that fails
//     is not written (the remote store's lost-write rule settles a retried batch whose first
//     answer was lost); one that fails with IOError may have been applied as a whole, as any
//     Table::Submit that fails so.
//   - A conflict is found by the service, in the batch that meets it: an existing row, or an
//     earlier row of the stream with the same key, both in insert mode. The bad row is the
//     operation the service names (Status::failed_op()); a failure that names none (IOError,
//     NotFound for a dropped table, an authentication failure) stops the writer without a bad
//     row.
//   - Throttled (the service's 503 or 429, after the remote store's own retries; RemoteOptions)
//     follows retry_throttled: with a policy the worker submits the batch again after the
//     wait; without one, or once the policy gives up, no new batch starts, the call returns
//     Throttled once the batches in flight have finished, and the next call submits the
//     throttled batches again. A Throttled Add did not take its row; a Throttled AddJsonLines
//     did not take its lines (call it again with them). Once AddJsonLines has taken its lines
//     it returns OK, and a throttle met while writing them is returned by a later call. Busy
//     likewise.
//   - validate_before_writing validates every row before any batch is sent (a bad row: nothing
//     written) and keeps the rows in the spill file as JSON; Finish then writes them in stream
//     order (no key order is needed: each batch is one request). Conflicts are found while
//     writing, as above, not before.
//   - AddJsonLines parses each line as the local path does (EntityFromJson, the key schemes
//     given at Store::OpenTable, Table::Submit's checks) on the calling thread: `threads` has no
//     effect, as the service takes rows far more slowly than one thread parses them.
//   - WriteOptions::sync has no effect: the service acknowledges a batch once it is durable.
//
// Thread-safety: a BulkWriter is driven by one thread at a time; AddJsonLines (and, on a remote
// table, the submission of batches) uses worker threads of its own. Destroying a writer without
// Finish writes nothing more: the rows not yet written are dropped (on a remote table, after the
// batches in flight have been answered).

#ifndef PARTKV_BULK_WRITER_H_
#define PARTKV_BULK_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/batch.h"
#include "partkv/clock.h"
#include "partkv/entity.h"
#include "partkv/options.h"
#include "partkv/profile.h"
#include "partkv/result.h"
#include "partkv/table.h"
#include "partkv/table_info.h"

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

// Consecutive rows of the stream: positions [begin, end), input lines first_line .. last_line
// (0 when the rows came from Add; the lines between them are these rows and blank lines).
struct BulkRowRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t first_line = 0;
  uint64_t last_line = 0;
};

// What a bulk write has done so far (BulkWriter::report()).
struct BulkWriteReport {
  uint64_t rows_added = 0;   // rows taken and found valid (the bad row not included)
  uint64_t lines_added = 0;  // lines given to AddJsonLines, blank ones included
  // The rows of the stream written: its first rows_written rows (but see validate_before_writing
  // and the exception above).
  uint64_t rows_written = 0;
  uint64_t groups_written = 0;  // atomic writes, each of many rows
  // The batches the written rows form (above); with validate_before_writing counted when
  // Finish ends. On a remote table, the batches of the first rows_written rows.
  uint64_t batches_written = 0;
  // Group writes refused by a throughput budget (on a remote table: batches the service
  // answered Throttled after the remote store's own retries).
  uint64_t throttled = 0;
  int64_t throttled_wait_micros = 0;  // waited by retry_throttled
  // Once the writer has stopped at a bad row: its 0-based position and its 1-based input line
  // (0 when it came from Add).
  std::optional<uint64_t> bad_row;
  uint64_t bad_line = 0;
  // After a call failed (a stop, Throttled, Busy): the input line of row rows_written — the first
  // row not written, where to resume — or 0 when that row came from Add or is not known. On a
  // remote table, the rows in also_written past it are written too.
  uint64_t resume_line = 0;
  // On a remote table, the rows acknowledged past the first rows_written, in stream order:
  // batches acknowledged while an earlier batch was not (yet) — after a stop, exactly the rows
  // written besides the first rows_written. Always empty on a local table.
  std::vector<BulkRowRange> also_written;
  // Why the writer stopped: the bad row's error (its message starts "line N: " or "row N: "), or
  // a failure of the store; OK while it goes on.
  Status error;
};

// A group the writer has just written (BulkWriteOptions::on_group_written): its rows in the
// order they were written — the stream's order, or with validate_before_writing key order; on a
// remote table, one batch. Valid only during the call.
class BulkWrittenGroup {
 public:
  size_t size() const { return size_; }  // rows written
  // The stream position of the i-th row written. REQUIRES: i < size().
  uint64_t row(size_t i) const { return positions_[i]; }
  // The Timestamp and ETag the i-th row was written with. REQUIRES: i < size().
  WriteResult result(size_t i) const;

 private:
  friend class BulkWriter;
  BulkWrittenGroup(const uint64_t* positions, size_t size, int64_t first_tick)
      : positions_(positions), size_(size), first_tick_(first_tick) {}
  BulkWrittenGroup(const uint64_t* positions, const WriteResult* results, size_t size)
      : positions_(positions), results_(results), size_(size) {}
  const uint64_t* positions_;
  const WriteResult* results_ = nullptr;  // the service's answers (remote); else from the tick
  size_t size_;
  int64_t first_tick_ = 0;
};

struct BulkWriteOptions {
  // What every row is: OpType::kInsert, kInsertOrReplace or kInsertOrMerge.
  OpType mode = OpType::kInsert;
  // A group is written once it holds max_group_rows rows, or when the next row would take it
  // past max_group_bytes of encoded rows (or, with throttling emulation, a partition's burst).
  // Larger groups write faster, to a point, and cost about twice max_group_bytes of memory while
  // one is written.
  size_t max_group_rows = 16384;
  size_t max_group_bytes = 8u << 20;
  // Durability of every group (WriteOptions::sync: an fsync per group).
  WriteOptions write;
  // Validate every row, and check it for conflicts, before writing any; then write them all in
  // key order (above). The rows wait in an unlinked spill file in spill_directory, else $TMPDIR,
  // else /tmp.
  bool validate_before_writing = false;
  std::string spill_directory;
  // Worker threads that parse and validate AddJsonLines' lines; 0: one per core, at least 2.
  // No effect on a remote table (above).
  size_t threads = 0;
  // On a remote table: the batches submitted at once, each on a worker thread of the writer's
  // (the remote store's RemoteOptions::max_connections bounds the requests in flight as well).
  // No effect on a local table.
  size_t max_batches_in_flight = 8;
  // When set, a group refused by a throughput budget is retried after the wait the store names
  // (waiting on `clock`; null: the steady clock), under this policy, before Throttled is
  // returned.
  std::optional<RetryPolicy> retry_throttled;
  std::shared_ptr<Clock> clock;
  // Called after each group is written, on the thread that made the call that wrote it, with
  // the group and the report so far. It must not call the writer.
  std::function<void(const BulkWrittenGroup&, const BulkWriteReport&)> on_group_written;
};

class BulkWriter {
 public:
  // A writer into `table` (the writer keeps its own handle on it), of a local or a remote store.
  // InvalidArgument for a mode other than the three above, a zero group bound or a zero
  // max_batches_in_flight; NotFound when the table has been dropped (a remote table: found by
  // the first batch); IOError when the spill file of validate_before_writing cannot be created.
  static Result<BulkWriter> Create(const Table& table, const BulkWriteOptions& options = {});

  BulkWriter(BulkWriter&&) noexcept;
  BulkWriter& operator=(BulkWriter&&) noexcept;
  BulkWriter(const BulkWriter&) = delete;
  BulkWriter& operator=(const BulkWriter&) = delete;
  ~BulkWriter();

  // Validates `entity` and takes it as the stream's next row; writes the group before it when
  // that group is full. Returns the row's error (InvalidArgument, "row N: ...") when it is bad,
  // the first bad row's error once the writer has stopped, Throttled or Busy when the full group
  // could not be written yet (the row was not taken: call Add again with it), a conflict found
  // in that group (AlreadyExists), or a failure of the store. InvalidArgument after Finish.
  Status Add(const Entity& entity);

  // Takes the lines of `lines` (JSON Lines: whole lines, the last one may lack its newline;
  // blank lines are skipped) as the stream's next rows, each parsed as EntityFromJson does (keys
  // may be absent only when the table has a key scheme) and validated as Add does, on worker
  // threads. Returns once the lines are handed over: a bad line may be reported by a later
  // call, with its line number ("line N: ..."). Other returns as Add's.
  Status AddJsonLines(std::string_view lines);

  // Validates every row taken so far and, unless validate_before_writing, writes them (a group
  // that is not full included). Returns what Add may return; with validate_before_writing, OK
  // means every row so far is valid (conflicts are looked for by Finish).
  Status Flush();

  // Ends the stream: validates and writes every row not yet written (with
  // validate_before_writing, this is where every row is written). OK when the whole stream is
  // in the table; otherwise as Add. After Throttled or Busy call Finish again: it resumes.
  Status Finish();

  const BulkWriteReport& report() const;

 private:
  struct Impl;  // a local table's writer (api/front/bulk_writer.cc)
  struct __attribute__((visibility("hidden")))
  Remote;  // any other table's (api/front/remote_bulk_writer.h)
  explicit BulkWriter(std::unique_ptr<Impl> impl);
  __attribute__((visibility("hidden"))) explicit BulkWriter(std::unique_ptr<Remote> remote);
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<Remote> remote_;
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_BULK_WRITER_H_
