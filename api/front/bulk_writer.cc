// BulkWriter: the front of a bulk write into a local table — the stream's positions and lines,
// when a group is written, what a bad row stops, the report. The engine does the rest:
// engine/local/row_sealer.h checks and encodes each row once, engine/local/bulk_lines.h does it for
// JSON Lines on worker threads, engine/local/bulk_stage.h keeps the rows of validate_before_writing
// on disk in key order, engine/local/bulk_group.h writes a group. Any other table's bulk write is
// api/front/remote_bulk_writer.h's.

#include "partkv/bulk_writer.h"

#include <algorithm>
#include <limits>
#include <thread>

#include "api/front/front_access.h"
#include "api/front/remote_bulk_writer.h"
#include "engine/etag.h"
#include "engine/local/bulk_group.h"
#include "engine/local/bulk_lines.h"
#include "engine/local/bulk_spill.h"
#include "engine/local/bulk_stage.h"
#include "engine/local/row_sealer.h"
#include "engine/local/table_handle.h"

namespace partkv {
namespace {

// Commits `group`, retrying a throttled one under the options' policy, and counts the refusals
// and the waits in *report. A function of internal linkage: RetryThrottled's instantiation,
// whose name carries engine types, stays out of libpartkv's exported symbols.
engine::GroupOutcome CommitRetrying(engine::GroupWriter& writer, engine::BulkGroup& group,
                                    const BulkWriteOptions& options, Clock& clock,
                                    BulkWriteReport* report) {
  engine::GroupOutcome o;
  auto commit = [&] {
    o = writer.Commit(group);
    if (o.status.IsThrottled()) ++report->throttled;
    return o.status;
  };
  if (options.retry_throttled) {
    RetryStats retry;
    (void)RetryThrottled(commit, clock, *options.retry_throttled, &retry);
    report->throttled_wait_micros += retry.waited_micros;
  } else {
    (void)commit();
  }
  return o;
}

}  // namespace

WriteResult BulkWrittenGroup::result(size_t i) const {
  if (results_ != nullptr) return results_[i];
  const int64_t tick = first_tick_ + static_cast<int64_t>(i);
  return WriteResult{engine::FormatEtag(static_cast<uint64_t>(tick)), DateTime{tick}};
}

struct BulkWriter::Impl {
  Impl(const Table& t, engine::RowSealer s, const BulkWriteOptions& o)
      : table(t),
        handle(FrontAccess::Of(table)),
        sealer(s),
        options(o),
        clock(o.clock ? o.clock : Clock::Steady()),
        group(handle.data(), /*cut_batches=*/true),
        writer(handle, sealer, o.mode, o.write.sync) {
    read_options.require_keys =
        !handle.data().partition_key_scheme() && !handle.data().row_key_scheme();
  }

  // The state every call starts from: the writer's stop, or after Finish InvalidArgument.
  Status Check() const {
    if (!report.error.ok()) return report.error;
    if (finished) return Status::InvalidArgument("the bulk write has finished");
    return Status::OK();
  }

  // Takes a valid row as the stream's next: to the stage while validating everything first,
  // else to the group (writing the group before it when that is full).
  Status Take(const engine::SealedRow& row, uint64_t line) {
    if (stage) {
      if (Status s = stage->Add(row, report.rows_added, line); !s.ok()) return Stop(s);
      if (report.rows_added == 0) first_line = line;
    } else {
      PARTKV_RETURN_IF_ERROR(Group(row, report.rows_added, line));
    }
    ++report.rows_added;
    return Status::OK();
  }

  Status Group(const engine::SealedRow& row, uint64_t position, uint64_t line) {
    if (group.Full(row, options.max_group_rows, options.max_group_bytes)) {
      PARTKV_RETURN_IF_ERROR(Commit(group));
    }
    group.Append(row, position, line);
    return Status::OK();
  }

  // Takes back the validated blocks of AddJsonLines: every one when `all`, else until a slot is
  // free. Resumable: a block whose rows are partly taken keeps its place.
  Status DrainLines(bool all) {
    while (lines && !lines->empty() && (all || lines->full())) {
      engine::LineBlock& block = lines->Oldest();
      while (block.taken < block.records.size()) {
        engine::SpillRecord record;
        std::string_view rest = std::string_view(block.records).substr(block.taken);
        Result<bool> whole = engine::ParseRecord(sealer, rest, &record);
        if (!whole.ok() || !*whole) {
          return Stop(whole.ok() ? Status::Corruption("a validated block ends inside a row")
                                 : whole.status());
        }
        PARTKV_RETURN_IF_ERROR(Take(record.row, record.line));
        block.taken += engine::RecordSize(record);
      }
      if (!block.error.ok()) return StopAtInvalidRow(block.bad_line, block.error);
      lines->Pop();
    }
    return Status::OK();
  }

  // Writes `group` (CommitRetrying) and takes in what came of it. Throttled and Busy keep the
  // group for the next call; anything else ends it.
  Status Commit(engine::BulkGroup& group) {
    if (group.empty()) return Status::OK();
    const engine::GroupOutcome o = CommitRetrying(writer, group, options, *clock, &report);
    if (o.status.IsThrottled() || o.status.IsBusy()) {
      report.resume_line = stage ? 0 : group.line(0);
      return o.status;
    }
    if (o.written > 0) {
      report.rows_written += o.written;
      if (!stage) report.batches_written += o.batches;
      ++report.groups_written;
      if (options.on_group_written) {
        options.on_group_written(
            BulkWrittenGroup(group.positions().data(), o.written, o.first_tick), report);
      }
    }
    Status s = o.status;
    if (o.bad_row) {
      const size_t bad = *o.bad_row;
      report.bad_row = group.position(bad);
      report.bad_line = group.line(bad);
      // Staged rows come in key order: the rows written are not the stream's first ones.
      report.resume_line = stage ? 0 : group.line(o.written);
      s = s.WithContext(RowName(*report.bad_row, report.bad_line));
    } else if (!s.ok()) {
      report.resume_line = stage ? 0 : group.line(0);
    }
    group.Clear();  // before Stop, which may drop the group
    return s.ok() ? s : Stop(s);
  }

  // A row that failed validation, at the next position: nothing of its group (with
  // validate_before_writing: nothing at all) is written.
  Status StopAtInvalidRow(uint64_t line, const Status& error) {
    report.bad_row = report.rows_added;
    report.bad_line = line;
    if (stage) {
      report.resume_line = report.rows_added > 0 ? first_line : line;
    } else {
      report.resume_line = group.empty() ? line : group.line(0);
    }
    return Stop(error);
  }

  // Stops the writer at `error` (which may live in what is dropped here).
  Status Stop(const Status& error) {
    report.error = error;
    writer.RecordStatistics();
    group.Clear();
    lines.reset();
    staged_group = nullptr;
    feed.reset();
    stage.reset();
    return report.error;
  }

  static std::string RowName(uint64_t position, uint64_t line) {
    return line > 0 ? "line " + std::to_string(line) : "row " + std::to_string(position);
  }

  // With validate_before_writing: looks for the first conflict (kInsert), then writes the
  // staged rows in key order, each group as the feed hands it over, leaving out the rows from
  // the conflict's batch on. Resumable after Throttled or Busy: the group at hand stays the
  // writer's until written.
  Status WriteStaged() {
    if (!feed) {
      if (Status s = stage->Close(); !s.ok()) return Stop(s);
      if (options.mode == OpType::kInsert) {
        Result<std::optional<engine::StagedConflict>> found =
            engine::FindFirstConflict(*stage, handle);
        if (!found.ok()) return Stop(found.status());
        conflict = std::move(*found);
        if (conflict) cut = conflict->position - conflict->batch_offset;
      }
      feed = std::make_unique<engine::GroupFeed>(*stage, handle.data(), sealer, cut,
                                                 options.max_group_rows, options.max_group_bytes);
    }
    while (true) {
      if (staged_group == nullptr) {
        Result<engine::BulkGroup*> next = feed->Next();
        if (!next.ok()) return Stop(next.status());
        if (*next == nullptr) break;
        staged_group = *next;
      }
      PARTKV_RETURN_IF_ERROR(Commit(*staged_group));
      feed->Done(staged_group);
      staged_group = nullptr;
    }
    cut_line = feed->cut_line();
    return Status::OK();
  }

  // After the last staged group: the batches written, and the conflict's stop.
  Status EndStaged() {
    report.batches_written = conflict ? conflict->batch : stage->batches();
    if (!conflict) return Status::OK();
    report.bad_row = conflict->position;
    report.bad_line = conflict->line;
    report.resume_line = cut_line;
    return Stop(conflict->error.WithContext(RowName(conflict->position, conflict->line)));
  }

  Table table;  // keeps the table's engine alive
  engine::TableHandle& handle;
  const engine::RowSealer sealer;
  const BulkWriteOptions options;
  const std::shared_ptr<Clock> clock;
  JsonReadOptions read_options;
  engine::BulkGroup group;
  engine::GroupWriter writer;
  BulkWriteReport report;
  std::unique_ptr<engine::LineSealer> lines;  // made by the first AddJsonLines
  std::string scratch;                        // Add's record
  bool finished = false;
  // validate_before_writing: the stage and row 0's line; while Finish writes, the first
  // conflict and where its batch starts (nothing from there on is written) with that row's
  // line, the feed of groups in key order and the group at hand.
  std::unique_ptr<engine::BulkStage> stage;
  uint64_t first_line = 0;
  std::optional<engine::StagedConflict> conflict;
  uint64_t cut = std::numeric_limits<uint64_t>::max();
  uint64_t cut_line = 0;
  std::unique_ptr<engine::GroupFeed> feed;
  engine::BulkGroup* staged_group = nullptr;
};

Result<BulkWriter> BulkWriter::Create(const Table& table, const BulkWriteOptions& options) {
  if (options.mode != OpType::kInsert && options.mode != OpType::kInsertOrReplace &&
      options.mode != OpType::kInsertOrMerge) {
    return Status::InvalidArgument(
        "a bulk write's rows are insert, insert-or-replace or insert-or-merge, not " +
        std::string(OpTypeName(options.mode)));
  }
  if (options.max_group_rows == 0 || options.max_group_bytes == 0) {
    return Status::InvalidArgument("a bulk write's groups need room for at least one row");
  }
  if (options.max_batches_in_flight == 0) {
    return Status::InvalidArgument("a bulk write needs room for at least one batch in flight");
  }
  engine::TableHandle* local = FrontAccess::LocalOf(table);
  if (local == nullptr) {
    PARTKV_ASSIGN_OR_RETURN(std::unique_ptr<Remote> remote, Remote::Create(table, options));
    return BulkWriter(std::move(remote));
  }
  engine::TableHandle& handle = *local;
  // A merge's row is sealed whole, as an upsert's: what differs is how its group writes it.
  PARTKV_ASSIGN_OR_RETURN(
      engine::RowSealer sealer,
      handle.NewRowSealer(options.mode == OpType::kInsert ? OpType::kInsert
                                                          : OpType::kInsertOrReplace));
  auto impl = std::make_unique<Impl>(table, sealer, options);
  if (options.validate_before_writing) {
    PARTKV_ASSIGN_OR_RETURN(
        impl->stage, engine::BulkStage::Create(handle, impl->sealer, options.spill_directory));
  }
  return BulkWriter(std::move(impl));
}

BulkWriter::BulkWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BulkWriter::BulkWriter(std::unique_ptr<Remote> remote) : remote_(std::move(remote)) {}
BulkWriter::BulkWriter(BulkWriter&&) noexcept = default;
BulkWriter& BulkWriter::operator=(BulkWriter&&) noexcept = default;
BulkWriter::~BulkWriter() = default;

const BulkWriteReport& BulkWriter::report() const {
  return remote_ ? remote_->report() : impl_->report;
}

Status BulkWriter::Add(const Entity& entity) {
  if (remote_) return remote_->Add(entity);
  Impl& w = *impl_;
  PARTKV_RETURN_IF_ERROR(w.Check());
  PARTKV_RETURN_IF_ERROR(w.DrainLines(/*all=*/true));
  w.scratch.clear();
  Status s = w.sealer.Seal(entity, &w.scratch);
  if (!s.ok()) {
    return w.StopAtInvalidRow(0, s.WithContext(Impl::RowName(w.report.rows_added, 0)));
  }
  engine::SealedRow row;
  Result<bool> whole = w.sealer.Parse(w.scratch, &row);
  if (!whole.ok() || !*whole) {
    return w.Stop(whole.ok() ? Status::Corruption("a sealed row does not read back whole")
                             : whole.status());
  }
  return w.Take(row, 0);
}

Status BulkWriter::AddJsonLines(std::string_view lines) {
  if (remote_) return remote_->AddJsonLines(lines);
  Impl& w = *impl_;
  PARTKV_RETURN_IF_ERROR(w.Check());
  if (!w.lines) {
    size_t workers = w.options.threads;
    if (workers == 0) workers = std::max(2u, std::thread::hardware_concurrency());
    w.lines = std::make_unique<engine::LineSealer>(w.sealer, w.read_options, workers);
  }
  PARTKV_RETURN_IF_ERROR(w.DrainLines(/*all=*/false));
  if (lines.empty()) return Status::OK();
  w.lines->Submit(lines, w.report.lines_added + 1);
  w.report.lines_added += engine::CountLines(lines);
  return Status::OK();
}

Status BulkWriter::Flush() {
  if (remote_) return remote_->Flush();
  Impl& w = *impl_;
  PARTKV_RETURN_IF_ERROR(w.Check());
  PARTKV_RETURN_IF_ERROR(w.DrainLines(/*all=*/true));
  if (w.stage) return Status::OK();
  PARTKV_RETURN_IF_ERROR(w.Commit(w.group));
  w.writer.RecordStatistics();
  return Status::OK();
}

Status BulkWriter::Finish() {
  if (remote_) return remote_->Finish();
  Impl& w = *impl_;
  if (w.finished) return w.report.error;
  PARTKV_RETURN_IF_ERROR(w.Check());
  PARTKV_RETURN_IF_ERROR(w.DrainLines(/*all=*/true));
  if (w.stage) {
    PARTKV_RETURN_IF_ERROR(w.WriteStaged());
    PARTKV_RETURN_IF_ERROR(w.EndStaged());
  } else {
    PARTKV_RETURN_IF_ERROR(w.Commit(w.group));
  }
  w.writer.RecordStatistics();
  w.finished = true;
  w.lines.reset();
  w.feed.reset();
  w.stage.reset();
  return Status::OK();
}

}  // namespace partkv
