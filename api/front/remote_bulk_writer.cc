// BulkWriter::Remote (remote_bulk_writer.h): the bulk writer over Table::Submit, batches in
// flight on worker threads.

#include "api/front/remote_bulk_writer.h"

#include <algorithm>
#include <utility>

#include "engine/local/bulk_lines.h"
#include "engine/local/row_sealer.h"
#include "engine/profile_spec.h"
#include "partkv/profile.h"

namespace partkv {
namespace {

// Records in the spill file are read ahead this much at a time (more for a larger record).
constexpr size_t kSpillReadAhead = 1u << 20;
// The spill file's records are appended in blocks of about this much.
constexpr size_t kSpillWriteBlock = 1u << 20;

bool IsBlankLine(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// `error` of a batch's operation as the error of its row: the same code, its message named by
// the row (`row`) instead of Status::WithFailedOp's "operation N: ".
Status AsRowError(const Status& error, const std::string& row) {
  std::string_view message = error.message();
  const std::string prefix = "operation " + std::to_string(error.failed_op()) + ": ";
  if (message.starts_with(prefix)) message.remove_prefix(prefix.size());
  const std::string text = row + ": " + std::string(message);
  switch (error.code()) {
    case Status::Code::kNotFound:
      return Status::NotFound(text);
    case Status::Code::kAlreadyExists:
      return Status::AlreadyExists(text);
    case Status::Code::kPreconditionFailed:
      return Status::PreconditionFailed(text);
    case Status::Code::kInvalidArgument:
      return Status::InvalidArgument(text);
    case Status::Code::kThrottled:
      return Status::Throttled(text, error.retry_after());
    case Status::Code::kCorruption:
      return Status::Corruption(text);
    case Status::Code::kBusy:
      return Status::Busy(text);
    case Status::Code::kPermissionDenied:
      return Status::PermissionDenied(text);
    case Status::Code::kTrimmed:
      return Status::Trimmed(text);
    case Status::Code::kOk:
    case Status::Code::kIOError:
      break;
  }
  return Status::IOError(text);
}

}  // namespace

Result<std::unique_ptr<BulkWriter::Remote>> BulkWriter::Remote::Create(
    const Table& table, const BulkWriteOptions& options) {
  const TableInfo info = table.info();
  // The remote backend names the profile whose limits it checks entities against.
  PARTKV_ASSIGN_OR_RETURN(engine::ProfileSpec profile, engine::GetProfile(info.profile));
  std::unique_ptr<Remote> remote(new Remote(table, options, profile.limits));
  remote->read_options_.require_keys = !info.partition_key_strategy && !info.row_key_strategy;
  if (options.validate_before_writing) {
    PARTKV_ASSIGN_OR_RETURN(engine::SpillFile file,
                            engine::SpillFile::Create(options.spill_directory));
    remote->spill_.emplace(std::move(file));
  }
  return remote;
}

BulkWriter::Remote::Remote(const Table& table, const BulkWriteOptions& options,
                           engine::Limits limits)
    : table_(table),
      options_(options),
      limits_(std::move(limits)),
      clock_(options.clock ? options.clock : Clock::Steady()),
      // A merge's keys are computed as an upsert's, as the local writer seals them.
      key_type_(options.mode == OpType::kInsert ? OpType::kInsert : OpType::kInsertOrReplace),
      max_batch_rows_(std::min(options.max_group_rows, limits_.max_batch_operations)),
      max_batch_bytes_(std::min(options.max_group_bytes, limits_.max_batch_bytes)),
      window_size_(2 * options.max_batches_in_flight) {}

BulkWriter::Remote::~Remote() {
  {
    port::MutexLock lock(&mu_);
    stopping_ = true;
    ending_ = true;
  }
  work_.SignalAll();
  for (std::thread& t : workers_) t.join();
}

std::string BulkWriter::Remote::RowName(uint64_t position, uint64_t line) {
  return line > 0 ? "line " + std::to_string(line) : "row " + std::to_string(position);
}

Status BulkWriter::Remote::Check() {
  if (!report_.error.ok()) return report_.error;
  if (finished_) return Status::InvalidArgument("the bulk write has finished");
  // A call after Throttled or Busy submits the held batches again. A pause no call has reported
  // yet (its answer came after the last call returned) is reported by this one, which takes
  // nothing.
  {
    port::MutexLock lock(&mu_);
    if (paused_ && pause_told_) {
      for (auto& batch : window_) {
        if (batch->state == Pending::State::kHeld) batch->state = Pending::State::kQueued;
      }
      paused_ = false;
      pause_told_ = false;
      work_.SignalAll();
      return Status::OK();
    }
    if (!paused_) return Status::OK();
  }
  return Await(Until::kNow);
}

Status BulkWriter::Remote::Validate(const Entity& entity, Entity* keyed, size_t* size) const {
  PARTKV_ASSIGN_OR_RETURN(*keyed, table_.ComputeKeys(entity, key_type_));
  return engine::ValidateEntity(*keyed, limits_, size);
}

Status BulkWriter::Remote::Take(Entity keyed, size_t size, uint64_t line) {
  if (spill_) {
    engine::PutVarint(line, &spill_buffer_);
    engine::PutVarint(size, &spill_buffer_);
    const std::string json = EntityToJson(keyed);
    engine::PutVarint(json.size(), &spill_buffer_);
    spill_buffer_ += json;
    if (spill_buffer_.size() >= kSpillWriteBlock) {
      if (Status s = spill_->Append(spill_buffer_); !s.ok()) return Halt(s, std::nullopt);
      spill_buffer_.clear();
    }
  } else {
    PARTKV_RETURN_IF_ERROR(Batched(std::move(keyed), size, line));
  }
  if (report_.rows_added == 0) first_line_ = line;
  ++report_.rows_added;
  return Status::OK();
}

bool BulkWriter::Remote::OpensBatch(const Entity& keyed, size_t size) const {
  return open_->partition_key != keyed.partition_key() || open_->batch.size() >= max_batch_rows_ ||
         open_bytes_ + size > max_batch_bytes_ || open_row_keys_.contains(keyed.row_key());
}

Status BulkWriter::Remote::Batched(Entity keyed, size_t size, uint64_t line) {
  if (open_ && OpensBatch(keyed, size)) PARTKV_RETURN_IF_ERROR(Submit());
  if (!open_) {
    open_ = std::make_unique<Pending>();
    open_->partition_key = keyed.partition_key();
    open_->first_row = batched_rows_;
    open_row_keys_.clear();
    open_bytes_ = 0;
  }
  open_row_keys_.insert(keyed.row_key());
  open_bytes_ += size;
  open_->lines.push_back(line);
  open_->batch.Add(options_.mode, std::move(keyed), IfMatch::Any());
  ++batched_rows_;
  return Status::OK();
}

Status BulkWriter::Remote::Submit() {
  PARTKV_RETURN_IF_ERROR(Await(Until::kRoom));
  port::MutexLock lock(&mu_);
  if (workers_.empty()) {
    for (size_t i = 0; i < options_.max_batches_in_flight; ++i) {
      workers_.emplace_back([this] { Work(); });
    }
  }
  window_.push_back(std::move(open_));
  work_.Signal();
  return Status::OK();
}

Status BulkWriter::Remote::DrainLines() {
  while (pending_at_ < pending_.size()) {
    const size_t nl = pending_.find('\n', pending_at_);
    const size_t end = nl == std::string::npos ? pending_.size() : nl;
    std::string_view line(pending_.data() + pending_at_, end - pending_at_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!IsBlankLine(line)) {
      Result<Entity> entity = EntityFromJson(line, read_options_);
      Entity keyed;
      size_t size = 0;
      Status s = entity.ok() ? Validate(*entity, &keyed, &size) : entity.status();
      if (!s.ok()) {
        return Halt(s.WithContext("line " + std::to_string(pending_line_)), pending_line_);
      }
      // Throttled or Busy: the line stays here, to be taken by the next call.
      PARTKV_RETURN_IF_ERROR(Take(std::move(keyed), size, pending_line_));
    }
    pending_at_ = nl == std::string::npos ? pending_.size() : nl + 1;
    ++pending_line_;
  }
  pending_.clear();
  pending_at_ = 0;
  return Status::OK();
}

Status BulkWriter::Remote::Add(const Entity& entity) {
  PARTKV_RETURN_IF_ERROR(Check());
  PARTKV_RETURN_IF_ERROR(DrainLines());
  Entity keyed;
  size_t size = 0;
  if (Status s = Validate(entity, &keyed, &size); !s.ok()) {
    return Halt(s.WithContext(RowName(report_.rows_added, 0)), 0);
  }
  return Take(std::move(keyed), size, 0);
}

Status BulkWriter::Remote::AddJsonLines(std::string_view lines) {
  PARTKV_RETURN_IF_ERROR(Check());
  // What earlier calls handed over comes first; until it is taken, these lines are not.
  PARTKV_RETURN_IF_ERROR(DrainLines());
  if (lines.empty()) return Status::OK();
  pending_.assign(lines);
  pending_at_ = 0;
  pending_line_ = report_.lines_added + 1;
  report_.lines_added += engine::CountLines(lines);
  Status s = DrainLines();
  // The lines are handed over: a held batch makes a later call wait, not this one.
  if (s.IsThrottled() || s.IsBusy()) return Status::OK();
  return s;
}

Status BulkWriter::Remote::Flush() {
  PARTKV_RETURN_IF_ERROR(Check());
  PARTKV_RETURN_IF_ERROR(DrainLines());
  if (spill_) return Status::OK();
  if (open_) PARTKV_RETURN_IF_ERROR(Submit());
  return Await(Until::kAll);
}

Status BulkWriter::Remote::Finish() {
  if (finished_) return report_.error;
  PARTKV_RETURN_IF_ERROR(Check());
  PARTKV_RETURN_IF_ERROR(DrainLines());
  if (spill_) PARTKV_RETURN_IF_ERROR(WriteSpilled());
  if (open_) PARTKV_RETURN_IF_ERROR(Submit());
  PARTKV_RETURN_IF_ERROR(Await(Until::kAll));
  finished_ = true;
  spill_.reset();
  {
    port::MutexLock lock(&mu_);
    ending_ = true;
  }
  work_.SignalAll();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
  return Status::OK();
}

Status BulkWriter::Remote::WriteSpilled() {
  if (!spill_closed_) {
    if (!spill_buffer_.empty()) {
      if (Status s = spill_->Append(spill_buffer_); !s.ok()) return Halt(s, std::nullopt);
    }
    spill_buffer_ = std::string();
    spill_closed_ = true;
  }
  const JsonReadOptions read{.require_keys = true};
  while (true) {
    std::string_view rest = std::string_view(spill_ahead_).substr(spill_ahead_at_);
    size_t pos = 0;
    uint64_t line = 0, size = 0, json_size = 0;
    engine::VarintRead r = engine::GetVarint(rest, &pos, &line);
    if (r == engine::VarintRead::kOk) r = engine::GetVarint(rest, &pos, &size);
    if (r == engine::VarintRead::kOk) r = engine::GetVarint(rest, &pos, &json_size);
    if (r == engine::VarintRead::kBad) {
      return Halt(Status::Corruption("the bulk write's spill file holds a malformed record"),
                  std::nullopt);
    }
    if (r == engine::VarintRead::kPartial || rest.size() - pos < json_size) {
      // Read ahead: at least the rest of this record.
      spill_ahead_.erase(0, spill_ahead_at_);
      spill_ahead_at_ = 0;
      const size_t before = spill_ahead_.size();
      const size_t want = std::max<size_t>(kSpillReadAhead, json_size + pos);
      if (Status s = spill_->ReadAt(spill_read_, want, &spill_ahead_); !s.ok()) {
        return Halt(s, std::nullopt);
      }
      spill_read_ += spill_ahead_.size() - before;
      if (spill_ahead_.size() > before) continue;
      if (spill_ahead_.empty()) return Status::OK();  // every record taken
      return Halt(Status::Corruption("the bulk write's spill file ends inside a record"),
                  std::nullopt);
    }
    Result<Entity> entity = EntityFromJson(rest.substr(pos, json_size), read);
    if (!entity.ok()) {
      return Halt(Status::Corruption("a row of the bulk write's spill file does not read back: " +
                                     std::string(entity.status().message())),
                  std::nullopt);
    }
    // Throttled or Busy: the record stays, to be taken by the next call.
    PARTKV_RETURN_IF_ERROR(Batched(std::move(*entity), size, line));
    spill_ahead_at_ += pos + json_size;
  }
}

// ---- the window ------------------------------------------------------------------------------

// Locks and unlocks by hand, not with a MutexLock: a failed batch hands the held lock to
// HaltLocked, which releases it. clang checks that every return has released it.
Status BulkWriter::Remote::Await(Until until) {
  mu_.Lock();
  while (true) {
    PopWritten();
    if (WindowHas(Pending::State::kFailed)) return HaltLocked(Status::OK(), std::nullopt);
    if (paused_) {
      // A batch is held: once the batches in flight have been answered, the call returns.
      while (in_flight_ != 0) done_.Wait();
      PopWritten();
      if (WindowHas(Pending::State::kFailed)) return HaltLocked(Status::OK(), std::nullopt);
      Publish();
      if (!window_.empty()) report_.resume_line = window_.front()->lines.front();
      for (const auto& batch : window_) {
        if (batch->state == Pending::State::kHeld) {
          pause_told_ = true;
          Status held = batch->status;
          mu_.Unlock();
          return held;
        }
      }
    }
    const bool done = until == Until::kNow ||
                      (until == Until::kRoom && window_.size() < window_size_) ||
                      (until == Until::kAll && window_.empty());
    if (done) {
      Publish();
      mu_.Unlock();
      return Status::OK();
    }
    done_.Wait();
  }
}

bool BulkWriter::Remote::WindowHas(Pending::State state) const {
  return std::any_of(window_.begin(), window_.end(),
                     [&](const auto& b) { return b->state == state; });
}

void BulkWriter::Remote::PopWritten() {
  while (!window_.empty() && window_.front()->state == Pending::State::kWritten) {
    std::unique_ptr<Pending> batch = std::move(window_.front());
    window_.pop_front();
    mu_.Unlock();
    report_.rows_written += batch->batch.size();
    ++report_.batches_written;
    ++report_.groups_written;
    CallBack(*batch);
    mu_.Lock();
  }
}

void BulkWriter::Remote::CallBack(const Pending& batch) {
  if (!options_.on_group_written) return;
  std::vector<uint64_t> positions(batch.batch.size());
  for (size_t i = 0; i < positions.size(); ++i) positions[i] = batch.first_row + i;
  options_.on_group_written(
      BulkWrittenGroup(positions.data(), batch.results.data(), positions.size()), report_);
}

void BulkWriter::Remote::Publish() {
  report_.throttled = throttled_;
  report_.throttled_wait_micros = throttled_wait_micros_;
  report_.also_written.clear();
  for (const auto& batch : window_) {
    if (batch->state != Pending::State::kWritten) continue;
    const uint64_t end = batch->first_row + batch->batch.size();
    std::vector<BulkRowRange>& ranges = report_.also_written;
    if (!ranges.empty() && ranges.back().end == batch->first_row) {
      ranges.back().end = end;
      ranges.back().last_line = batch->lines.back();
    } else {
      ranges.push_back(
          BulkRowRange{batch->first_row, end, batch->lines.front(), batch->lines.back()});
    }
  }
}

Status BulkWriter::Remote::Halt(const Status& error, std::optional<uint64_t> bad_line) {
  mu_.Lock();
  return HaltLocked(error, bad_line);
}

Status BulkWriter::Remote::HaltLocked(Status error, std::optional<uint64_t> bad_line) {
  stopping_ = true;
  work_.SignalAll();
  while (in_flight_ != 0) done_.Wait();
  // No worker runs from here on: the window is the calling thread's.
  PopWritten();
  Publish();
  report_.bad_row.reset();
  report_.bad_line = 0;
  // A failed batch holds rows before any row not yet in a batch: it is the first bad one.
  auto failed = std::find_if(window_.begin(), window_.end(),
                             [](const auto& b) { return b->state == Pending::State::kFailed; });
  if (failed != window_.end()) {
    const Pending& batch = **failed;
    error = batch.status;
    const int op = error.failed_op();
    if (op >= 0 && static_cast<size_t>(op) < batch.lines.size()) {
      report_.bad_row = batch.first_row + static_cast<uint64_t>(op);
      report_.bad_line = batch.lines[op];
      error = AsRowError(error, RowName(*report_.bad_row, report_.bad_line));
    }
  } else if (bad_line) {
    report_.bad_row = report_.rows_added;
    report_.bad_line = *bad_line;
  }
  // The first row not written.
  if (!window_.empty()) {
    report_.resume_line = window_.front()->lines.front();
  } else if (open_) {
    report_.resume_line = open_->lines.front();
  } else if (report_.rows_written < report_.rows_added) {
    report_.resume_line = first_line_;  // validate_before_writing: nothing written
  } else {
    report_.resume_line = bad_line.value_or(0);
  }
  for (const auto& batch : window_) {
    if (batch->state == Pending::State::kWritten) CallBack(*batch);
  }
  window_.clear();
  mu_.Unlock();
  return Fail(error);
}

Status BulkWriter::Remote::Fail(const Status& error) {
  {
    port::MutexLock lock(&mu_);
    stopping_ = true;
    work_.SignalAll();
  }
  report_.error = error;
  open_.reset();
  pending_.clear();
  pending_at_ = 0;
  spill_.reset();
  spill_ahead_.clear();
  return report_.error;
}

// Locks and unlocks by hand: the lock is let go while a batch is submitted.
void BulkWriter::Remote::Work() {
  mu_.Lock();
  while (true) {
    Pending* batch = nullptr;
    // Until the writer ends, or a batch may go: not stopping, not paused, and one eligible.
    while (!ending_ && (stopping_ || paused_ || (batch = NextEligible()) == nullptr)) {
      work_.Wait();
    }
    if (ending_) {
      mu_.Unlock();
      return;
    }
    batch->state = Pending::State::kInFlight;
    ++in_flight_;
    mu_.Unlock();

    std::vector<WriteResult> results;
    uint64_t throttled = 0;
    auto submit = [&]() -> Status {
      Result<std::vector<WriteResult>> r = table_.Submit(batch->batch, options_.write);
      if (r.ok()) {
        results = std::move(*r);
        return Status::OK();
      }
      if (r.status().IsThrottled()) ++throttled;
      return r.status();
    };
    Status s;
    RetryStats retry;
    if (options_.retry_throttled) {
      s = RetryThrottled(submit, *clock_, *options_.retry_throttled, &retry);
    } else {
      s = submit();
    }

    mu_.Lock();
    --in_flight_;
    throttled_ += throttled;
    throttled_wait_micros_ += retry.waited_micros;
    if (s.ok()) {
      batch->state = Pending::State::kWritten;
      batch->results = std::move(results);
    } else if (s.IsThrottled() || s.IsBusy()) {
      batch->state = Pending::State::kHeld;
      batch->status = s;
      paused_ = true;
    } else {
      batch->state = Pending::State::kFailed;
      batch->status = s;
      stopping_ = true;
    }
    done_.SignalAll();
    // A batch of the same PartitionKey may now go.
    work_.SignalAll();
  }
}

BulkWriter::Remote::Pending* BulkWriter::Remote::NextEligible() {
  // A batch goes once no earlier batch of its PartitionKey waits for its answer.
  std::vector<std::string_view> waiting;
  for (const auto& batch : window_) {
    if (batch->state == Pending::State::kWritten) continue;
    const bool blocked =
        std::find(waiting.begin(), waiting.end(), batch->partition_key) != waiting.end();
    if (blocked) continue;
    if (batch->state == Pending::State::kQueued) return batch.get();
    waiting.push_back(batch->partition_key);
  }
  return nullptr;
}

}  // namespace partkv
