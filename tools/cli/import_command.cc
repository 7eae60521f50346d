// partkv import TABLE [FILE|-] [--mode insert|upsert]: JSON Lines in, in two passes with bounded
// memory (docs/cli.md "import").
//
// Pass 1 validates every line — JSON, the table's key scheme, the table's limits — before anything
// is written, and spills each valid row, sealed (engine/row_sealer.h: checked and encoded once),
// to an unlinked temporary file (import_spill.h). The input is cut into blocks of whole lines that
// worker threads validate in parallel; the main thread writes their records to the spill file in
// input order, so the first bad line reported is the first bad line of the file. A bad line stops
// the import with its line number and nothing written.
//
// Pass 2 reads the spill file back on a producer thread that groups consecutive rows of one
// PartitionKey into batches (at most the table's batch limits, 100 operations and 4 MiB by
// Azure's size formula by default, and never two operations on one row), while the main thread
// submits them in file order (TableHandle::SubmitSealed: the store writes them without decoding,
// checking or encoding them a second time). Each batch is atomic; the file as a whole cannot be:
// when a batch fails (in insert mode, a row that exists), the error names the line and how many
// rows were written — exactly those on the lines before the failing batch. A batch refused by the
// table's throughput budget (throttling emulation) is retried after the retry-after the store
// gives, as the cloud SDKs do (partkv/profile.h).
//
// Memory stays bounded whatever the input's size: a few blocks in flight in pass 1, a queue of
// at most kQueueBytes of batches in pass 2, plus the store's own memory budget.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/front/front_access.h"
#include "engine/row_sealer.h"
#include "engine/table_handle.h"
#include "partkv/clock.h"
#include "partkv/json.h"
#include "partkv/profile.h"
#include "tools/cli/cli.h"
#include "tools/cli/import_spill.h"
#include "tools/cli/progress.h"

namespace partkv::cli {
namespace {

using SteadyClock = std::chrono::steady_clock;

struct ImportArgs {
  std::string table;
  std::string file;
  std::string mode = "insert";
};

double Seconds(SteadyClock::duration d) { return std::chrono::duration<double>(d).count(); }

// ---- pass 1: validation ----

// Parses and validates lines; thread-safe (const; EntityFromJson's reader and the key scheme's
// random source are thread-local).
class RowValidator {
 public:
  RowValidator(const engine::TableHandle& state, const engine::RowSealer& sealer)
      : sealer_(sealer),
        read_options_{.require_keys =
                          !state.data().partition_key_scheme() && !state.data().row_key_scheme()} {}

  // Appends the spill record of one valid line to *out.
  Status Add(std::string_view line, uint64_t line_number, std::string* out) const {
    PARTKV_ASSIGN_OR_RETURN(Entity entity, EntityFromJson(line, read_options_));
    return AppendSpillRecord(sealer_, line_number, entity, out);
  }

 private:
  const engine::RowSealer& sealer_;
  JsonReadOptions read_options_;
};

// One block of whole input lines and what validating it gave. Slots are reused, buffers and all,
// so that pass 1 allocates nothing per block once it runs.
struct Slot {
  std::string text;
  uint64_t first_line = 0;
  std::string records;  // spill records of the valid lines
  uint64_t rows = 0;
  Status error;  // the first bad line's, with its number
  bool done = false;
};

void ValidateSlot(const RowValidator& validator, Slot& slot) {
  slot.records.clear();
  slot.rows = 0;
  slot.error = Status::OK();
  std::string_view rest(slot.text);
  uint64_t line_number = slot.first_line;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!IsBlank(line)) {
      Status s = validator.Add(line, line_number, &slot.records);
      if (!s.ok()) {
        slot.error = s.WithContext("line " + std::to_string(line_number));
        return;
      }
      ++slot.rows;
    }
    ++line_number;
  }
}

// Worker threads validating slots in any order; the reader fills slots and takes them back in
// input order (slot `seq` is slots_[seq % size]).
class ValidationPool {
 public:
  ValidationPool(const RowValidator& validator, size_t workers, size_t slots)
      : validator_(validator), slots_(slots) {
    for (size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { Work(); });
  }
  ~ValidationPool() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    work_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  size_t capacity() const { return slots_.size(); }
  Slot& slot(uint64_t seq) { return slots_[seq % slots_.size()]; }
  // Hands slot `seq`, filled, to the workers.
  void Submit(uint64_t seq) {
    std::lock_guard lock(mu_);
    slot(seq).done = false;
    queue_.push_back(seq);
    work_.notify_one();
  }
  // Waits until slot `seq` has been validated.
  Slot& Wait(uint64_t seq) {
    std::unique_lock lock(mu_);
    done_.wait(lock, [&] { return slot(seq).done; });
    return slot(seq);
  }

 private:
  void Work() {
    while (true) {
      uint64_t seq;
      {
        std::unique_lock lock(mu_);
        work_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        seq = queue_.front();
        queue_.pop_front();
      }
      ValidateSlot(validator_, slot(seq));
      {
        std::lock_guard lock(mu_);
        slot(seq).done = true;
      }
      done_.notify_all();
    }
  }

  const RowValidator& validator_;
  std::vector<Slot> slots_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable work_, done_;
  std::deque<uint64_t> queue_;
  bool stop_ = false;
};

uint64_t CountLines(std::string_view block) {
  // memchr skips a line's bytes many at a time; std::count looks at each.
  uint64_t n = 0;
  for (const char *p = block.data(), *end = p + block.size();
       (p = static_cast<const char*>(std::memchr(p, '\n', end - p))) != nullptr; ++p) {
    ++n;
  }
  return (!block.empty() && block.back() != '\n') ? n + 1 : n;
}

// Validates the whole input into `spill`; *rows receives the count of valid rows.
Status ValidateAll(LineReader& reader, const RowValidator& validator, SpillFile& spill,
                   Progress& progress, uint64_t* rows) {
  // A worker per core, and twice as many blocks in flight, so that no worker waits while the
  // reader reads and spills.
  const size_t workers = std::max(2u, std::thread::hardware_concurrency());
  ValidationPool pool(validator, workers, 2 * workers);
  uint64_t filled = 0, drained = 0, next_line = 1;
  bool input_done = false;
  Status read_status;
  while (true) {
    while (!input_done && filled - drained < pool.capacity()) {
      Slot& slot = pool.slot(filled);
      if (!reader.NextBlock(&slot.text, &read_status)) {
        input_done = true;
        break;
      }
      slot.first_line = next_line;
      next_line += CountLines(slot.text);
      pool.Submit(filled++);
    }
    if (drained == filled) break;
    Slot& slot = pool.Wait(drained++);
    PARTKV_RETURN_IF_ERROR(slot.error);
    PARTKV_RETURN_IF_ERROR(spill.Append(slot.records));
    *rows += slot.rows;
    if (progress.Due()) {
      std::string text = "validating: " + GroupDigits(*rows) + " rows";
      if (reader.size() > 0) {
        text += "  " + std::to_string(reader.bytes_read() * 100 / reader.size()) + "%";
      }
      progress.Show(text);
    }
  }
  // A reading error comes after every line before it has been checked.
  if (read_status.IsInvalidArgument()) {
    return read_status.WithContext("line " + std::to_string(next_line));
  }
  return read_status;
}

// ---- pass 2: writing ----

// Consecutive rows of one PartitionKey: their sealed rows back to back in `bytes`, and once the
// batch is complete, `sealed` reading them (views into `bytes`, whose heap buffer a move keeps:
// a sealed row is longer than any inline string).
struct PendingBatch {
  std::string bytes;
  std::vector<engine::SealedRow> sealed;
  std::vector<size_t> ends;                         // where each row ends in `bytes`
  std::vector<std::pair<size_t, size_t>> row_keys;  // each row's RowKey in `bytes`: offset, size
  std::vector<uint64_t> lines;                      // the input line of each row
  std::string partition_key;
  std::string max_row_key;  // the largest RowKey in the batch
  uint64_t size = 0;        // the rows' sizes in the table's size model

  size_t rows() const { return ends.size(); }
  std::string_view row(size_t i) const {
    size_t begin = i == 0 ? 0 : ends[i - 1];
    return std::string_view(bytes).substr(begin, ends[i] - begin);
  }
  // Whether the batch already has a row with `row_key`. Rows usually come sorted, so the largest
  // RowKey settles most cases without a scan.
  bool HasRow(std::string_view row_key) const {
    if (row_key > max_row_key) return false;
    for (const auto& [offset, size] : row_keys) {
      if (std::string_view(bytes).substr(offset, size) == row_key) return true;
    }
    return false;
  }
  void Add(const engine::SealedRow& row, uint64_t line) {
    if (ends.empty()) {
      partition_key = row.partition_key();
      max_row_key = row.row_key();
    } else if (row.row_key() > max_row_key) {
      max_row_key = row.row_key();
    }
    row_keys.emplace_back(bytes.size() + (row.row_key().data() - row.bytes().data()),
                          row.row_key().size());
    bytes.append(row.bytes());
    ends.push_back(bytes.size());
    lines.push_back(line);
    size += row.size();
  }
  // Reads the rows of the complete batch into `sealed`, for TableHandle::SubmitSealed (here, on
  // the producer thread, rather than on the writer's).
  Status Complete(const engine::RowSealer& sealer) {
    sealed.resize(rows());
    for (size_t i = 0; i < rows(); ++i) {
      PARTKV_ASSIGN_OR_RETURN(bool whole, sealer.Parse(row(i), &sealed[i]));
      if (!whole) return Status::Corruption("the import's spill file has a row cut short");
    }
    return Status::OK();
  }
  void Clear() {
    bytes.clear();
    sealed.clear();
    ends.clear();
    row_keys.clear();
    lines.clear();
    partition_key.clear();
    max_row_key.clear();
    size = 0;
  }
};

// Batches from the producer thread to the writer, at most `max_bytes` of entities at a time.
class BatchQueue {
 public:
  explicit BatchQueue(uint64_t max_bytes) : max_bytes_(max_bytes) {}

  // Blocks while full. False when the consumer has cancelled.
  bool Push(PendingBatch batch) {
    std::unique_lock lock(mu_);
    not_full_.wait(lock, [&] { return cancelled_ || queue_.empty() || bytes_ < max_bytes_; });
    if (cancelled_) return false;
    bytes_ += batch.bytes.size();
    queue_.push_back(std::move(batch));
    not_empty_.notify_one();
    return true;
  }
  // The producer is done; `status` says whether it failed.
  void Finish(Status status) {
    std::lock_guard lock(mu_);
    finished_ = true;
    status_ = std::move(status);
    not_empty_.notify_one();
  }
  // Blocks for the next batch; nullopt once the producer has finished and the queue is empty.
  std::optional<PendingBatch> Pop() {
    std::unique_lock lock(mu_);
    not_empty_.wait(lock, [&] { return finished_ || !queue_.empty(); });
    if (queue_.empty()) return std::nullopt;
    PendingBatch batch = std::move(queue_.front());
    queue_.pop_front();
    bytes_ -= batch.bytes.size();
    not_full_.notify_one();
    return batch;
  }
  void Cancel() {
    std::lock_guard lock(mu_);
    cancelled_ = true;
    not_full_.notify_one();
  }
  // The consumer hands a written batch back, so that the producer frees its entities and reuses
  // its buffers: memory is freed by the thread that allocated it, which keeps the allocator's
  // per-thread arenas uncontended.
  void Recycle(PendingBatch batch) {
    std::lock_guard lock(mu_);
    spent_.push_back(std::move(batch));
  }
  // An empty batch, reusing a spent one when there is one.
  PendingBatch Fresh() {
    PendingBatch batch;
    {
      std::lock_guard lock(mu_);
      if (!spent_.empty()) {
        batch = std::move(spent_.front());
        spent_.pop_front();
      }
    }
    batch.Clear();
    return batch;
  }
  Status status() {
    std::lock_guard lock(mu_);
    return status_;
  }

 private:
  const uint64_t max_bytes_;
  std::mutex mu_;
  std::condition_variable not_full_, not_empty_;
  std::deque<PendingBatch> queue_;
  std::deque<PendingBatch> spent_;
  uint64_t bytes_ = 0;
  bool finished_ = false;
  bool cancelled_ = false;
  Status status_;
};

// Batches in flight between the threads: a few full-size batches' worth.
constexpr uint64_t kQueueBytes = 16u << 20;

void ProduceBatches(SpillFile* spill, const engine::RowSealer* sealer, const engine::Limits* limits,
                    BatchQueue* queue) {
  PendingBatch pending;
  SpillRecord record;
  while (true) {
    Result<bool> more = spill->Next(*sealer, &record);
    if (!more.ok()) return queue->Finish(more.status());
    if (!*more) break;
    const engine::SealedRow& row = record.row;
    if (pending.rows() > 0 &&
        (row.partition_key() != pending.partition_key ||
         pending.rows() == limits->max_batch_operations ||
         pending.size + row.size() > limits->max_batch_bytes || pending.HasRow(row.row_key()))) {
      if (Status s = pending.Complete(*sealer); !s.ok()) return queue->Finish(s);
      if (!queue->Push(std::move(pending))) return queue->Finish(Status::OK());
      pending = queue->Fresh();
    }
    pending.Add(row, record.line);
  }
  if (pending.rows() > 0) {
    if (Status s = pending.Complete(*sealer); !s.ok()) return queue->Finish(s);
    (void)queue->Push(std::move(pending));
  }
  queue->Finish(Status::OK());
}

struct WriteTotals {
  uint64_t rows = 0;
  uint64_t batches = 0;
  uint64_t throttled = 0;  // batches refused by the table's throughput budget, then retried
  int64_t waited_micros = 0;
};

Status WriteAll(engine::TableHandle& state, const engine::RowSealer& sealer, SpillFile& spill,
                uint64_t total_rows, Progress& progress, WriteTotals* totals) {
  PARTKV_RETURN_IF_ERROR(spill.Rewind());
  BatchQueue queue(kQueueBytes);
  std::thread producer(ProduceBatches, &spill, &sealer, &state.data().limits(), &queue);
  SteadyClock::time_point start = SteadyClock::now();
  std::shared_ptr<partkv::Clock> clock = partkv::Clock::Steady();
  Status failure;
  while (std::optional<PendingBatch> pending = queue.Pop()) {
    // A table with throttling emulation refuses a batch over its partition's budget: wait the
    // retry-after and try again, as the cloud SDKs do, so the import runs at the cloud's pace.
    RetryStats retry;
    Status written = RetryThrottled([&] { return state.SubmitSealed(sealer, pending->sealed, {}); },
                                    *clock, RetryPolicy{}, &retry);
    totals->throttled += static_cast<uint64_t>(retry.throttled);
    totals->waited_micros += retry.waited_micros;
    if (!written.ok()) {
      int op = written.failed_op();
      uint64_t line = pending->lines[op >= 0 && static_cast<size_t>(op) < pending->lines.size()
                                         ? static_cast<size_t>(op)
                                         : 0];
      std::string message = "line " + std::to_string(line) + ": " +
                            WithoutOperationPrefix(written.message()) + "; ";
      if (totals->rows == 0) {
        message += "nothing was written";
      } else {
        message += GroupDigits(totals->rows) + " rows were written (every row before line " +
                   std::to_string(pending->lines[0]) + "), none from line " +
                   std::to_string(pending->lines[0]) + " on";
      }
      failure = Reworded(written, message);
      queue.Cancel();
      break;
    }
    totals->rows += pending->rows();
    ++totals->batches;
    queue.Recycle(std::move(*pending));
    if (progress.Due()) {
      double elapsed = Seconds(SteadyClock::now() - start);
      double rate = elapsed > 0 ? static_cast<double>(totals->rows) / elapsed : 0;
      std::string text = "writing: " + GroupDigits(totals->rows) + " / " +
                         GroupDigits(total_rows) + " rows";
      if (rate > 0) {
        text += "  " + GroupDigits(static_cast<uint64_t>(rate)) + " rows/s  ETA " +
                HumanDuration(static_cast<double>(total_rows - totals->rows) / rate);
      }
      progress.Show(text);
    }
  }
  producer.join();
  PARTKV_RETURN_IF_ERROR(failure);
  return queue.status();
}

Status RunImport(const Context& ctx, const ImportArgs& args) {
  const OpType type = args.mode == "upsert" ? OpType::kInsertOrReplace : OpType::kInsert;
  PARTKV_ASSIGN_OR_RETURN(Store store, OpenStore(ctx));
  PARTKV_ASSIGN_OR_RETURN(Table table, store.OpenTable(args.table));
  PARTKV_ASSIGN_OR_RETURN(LineReader reader, LineReader::Open(args.file));
  PARTKV_ASSIGN_OR_RETURN(SpillFile spill, SpillFile::Create());
  Progress progress;
  const std::string& name = table.name();

  SteadyClock::time_point start = SteadyClock::now();
  engine::TableHandle& state = FrontAccess::Of(table);
  PARTKV_ASSIGN_OR_RETURN(engine::RowSealer sealer, state.NewRowSealer(type));
  RowValidator validator(state, sealer);
  uint64_t rows = 0;
  Status valid = ValidateAll(reader, validator, spill, progress, &rows);
  progress.Clear();
  if (!valid.ok()) {
    std::fprintf(stderr, "partkv: import: 0 rows written to %s: %s\n", name.c_str(),
                 valid.IsInvalidArgument() ? "a line is invalid, so nothing was written"
                                           : "the input could not be read");
    return Reworded(valid, std::string(valid.message()) + "; nothing was written");
  }
  double validated = Seconds(SteadyClock::now() - start);

  WriteTotals totals;
  Status written = WriteAll(state, sealer, spill, rows, progress, &totals);
  progress.Clear();
  double elapsed = Seconds(SteadyClock::now() - start);
  double rate = elapsed > 0 ? static_cast<double>(totals.rows) / elapsed : 0;
  std::string throttled;
  if (totals.throttled > 0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "; throttled %llu times, waited %.2f s",
                  static_cast<unsigned long long>(totals.throttled),
                  static_cast<double>(totals.waited_micros) / 1e6);
    throttled = buf;
  }
  std::fprintf(stderr,
               "partkv: import: %llu of %llu rows written to %s in %.2f s (%.0f rows/s; %llu "
               "batches; validation %.2f s%s)\n",
               static_cast<unsigned long long>(totals.rows),
               static_cast<unsigned long long>(rows), name.c_str(), elapsed, rate,
               static_cast<unsigned long long>(totals.batches), validated, throttled.c_str());
  return written;
}

}  // namespace

void AddImportCommand(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "import",
      "Write JSON Lines entities in per-partition batches; every line is validated before "
      "anything is written");
  cmd->add_option("TABLE", args->table, "table name")->required();
  cmd->add_option("FILE", args->file, "JSON Lines file; - or absent: stdin");
  cmd->add_option("--mode", args->mode,
                  "insert (default: a row that exists fails the import) or upsert (replace)")
      ->check(CLI::IsMember({"insert", "upsert"}));
  cmd->callback([&ctx, args] { ctx.action = [&ctx, args] { return RunImport(ctx, *args); }; });
}

}  // namespace partkv::cli
