// partkv::CopyTable (partkv/copy.h): units of the source read by `streams` threads, each unit
// written by a BulkWriter of its own, its progress recorded in the checkpoint as the destination
// acknowledges groups.

#include "partkv/copy.h"

#include <atomic>
#include <deque>
#include <thread>

#include "api/front/copy_checkpoint.h"
#include "api/front/copy_map.h"
#include "api/front/copy_source.h"
#include "api/front/front_access.h"
#include "engine/port/mutex.h"
#include "partkv/bulk_writer.h"

namespace partkv {
namespace {

using copy::Checkpoint;
using copy::CopyMapper;
using copy::KeyText;
using copy::Source;
using copy::SourceLayout;

// The rows of a remote destination's batch (Azure's entity-group limit).
constexpr size_t kBatchRows = 100;

OpType WriteOp(CopyMode mode) {
  switch (mode) {
    case CopyMode::kUpsert:
      return OpType::kInsertOrReplace;
    case CopyMode::kMerge:
      return OpType::kInsertOrMerge;
    case CopyMode::kInsert:
      break;
  }
  return OpType::kInsert;
}

// A row a unit has taken and the destination has not yet acknowledged.
struct Pending {
  std::string source_pk, source_rk;
  std::string image_pk, image_rk;
  int64_t position;  // in the unit's writer; -1: found in the destination, not sent again
};

// One unit's rows in flight, between the thread that adds them and the writer's acknowledgements.
class UnitRows {
 public:
  void Push(Pending row) {
    port::MutexLock lock(&mu_);
    rows_.push_back(std::move(row));
  }
  // Drops the rows the writer's first `written` rows acknowledge (and the rows not sent before
  // them); returns the last one's source key when any was dropped.
  std::optional<std::pair<std::string, std::string>> Acknowledge(uint64_t written) {
    port::MutexLock lock(&mu_);
    std::optional<std::pair<std::string, std::string>> last;
    while (!rows_.empty() && (rows_.front().position < 0 ||
                              static_cast<uint64_t>(rows_.front().position) < written)) {
      last.emplace(std::move(rows_.front().source_pk), std::move(rows_.front().source_rk));
      rows_.pop_front();
    }
    return last;
  }
  std::optional<Pending> At(uint64_t position) const {
    port::MutexLock lock(&mu_);
    for (const Pending& row : rows_) {
      if (row.position == static_cast<int64_t>(position)) return row;
    }
    return std::nullopt;
  }

 private:
  mutable port::Mutex mu_;
  std::deque<Pending> rows_ PARTKV_GUARDED_BY(mu_);
};

// The rows a unit's writer may hold sent and unacknowledged: a group locally; on a remote
// destination the batches waiting and the one being filled.
uint64_t WindowOf(const CopyOptions& options, bool remote_destination) {
  if (!remote_destination) return options.max_group_rows + 1;
  return (2 * options.max_batches_in_flight + 1) * kBatchRows;
}

class CopyRun {
 public:
  CopyRun(const Table& from, const Table& to, const CopyOptions& options, const CopyMapper& mapper,
          const Source& source, Checkpoint& checkpoint)
      : from_(from),
        to_(to),
        options_(options),
        mapper_(mapper),
        source_(source),
        checkpoint_(checkpoint),
        layout_(checkpoint.layout()),
        remote_destination_(FrontAccess::LocalOf(to) == nullptr) {}

  void Run(CopyReport* report) {
    report->units = static_cast<uint32_t>(layout_.units());
    report->streams = static_cast<uint32_t>(std::min<size_t>(options_.streams, layout_.units()));
    if (source_.local() && mapper_.filter().empty() && !options_.resume) {
      source_bytes_ = source_.ApproximateBytes();
    }
    std::vector<std::thread> threads;
    for (uint32_t i = 1; i < report->streams; ++i) threads.emplace_back([this] { Work(); });
    Work();
    for (std::thread& t : threads) t.join();
    report->rows_read = rows_read_;
    report->rows_written = rows_written_;
    report->resent = resent_;
    report->units_skipped = units_skipped_;
    report->throttled = throttled_;
    report->throttled_wait_micros = throttled_wait_;
    port::MutexLock lock(&mu_);
    report->rows_failed = rows_failed_;
    report->rekey_collisions = rekey_collisions_;
    report->error = error_;
  }

 private:
  void Work() {
    for (;;) {
      if (stop_.load()) return;
      const size_t unit = next_unit_.fetch_add(1);
      if (unit >= layout_.units()) return;
      Status s = CopyUnit(unit);
      if (!s.ok()) Stop(s);
    }
  }

  void Stop(const Status& s) {
    port::MutexLock lock(&mu_);
    if (error_.ok()) error_ = s;
    stop_.store(true);
  }

  // The rows after a unit's checkpoint that the interrupted run may have sent: what its writer
  // could hold unacknowledged (a group locally; the batches waiting and the one being filled on
  // a remote destination).
  size_t ResumeWindow() const {
    return std::max<uint64_t>(checkpoint_.window(), WindowOf(options_, remote_destination_));
  }

  // Whether the destination holds `image` as the copy writes it.
  Result<bool> AlreadyThere(const Entity& image) const {
    auto stored = to_.Get(image.partition_key(), image.row_key());
    if (stored.status().IsNotFound()) return false;
    if (!stored.ok()) return stored.status();
    return mapper_.Holds(*stored, image);
  }

  void Acknowledged(size_t unit, UnitRows& rows, uint64_t written, uint64_t* counted) {
    auto last = rows.Acknowledge(written);
    if (written > *counted) {
      rows_written_ += written - *counted;
      *counted = written;
    }
    if (last) checkpoint_.Acknowledge(unit, std::move(last->first), std::move(last->second));
    Status s = checkpoint_.Save();
    if (!s.ok()) Stop(s);
    Progress();
  }

  void Progress() {
    if (!options_.on_progress) return;
    CopyProgress progress;
    progress.rows_read = rows_read_;
    progress.rows_written = rows_written_;
    progress.units = static_cast<uint32_t>(layout_.units());
    progress.units_done = units_done_;
    const uint64_t bytes = bytes_read_;
    if (source_bytes_ > 0 && bytes > 0 && progress.rows_read > 0) {
      progress.source_rows_estimate = static_cast<uint64_t>(
          static_cast<double>(source_bytes_) * progress.rows_read / static_cast<double>(bytes));
    }
    port::MutexLock lock(&progress_mu_);
    options_.on_progress(progress);
  }

  Status CopyUnit(size_t unit) {
    const copy::UnitState state = checkpoint_.unit(unit);
    if (state.done) {
      ++units_skipped_;
      ++units_done_;
      return Status::OK();
    }
    PARTKV_ASSIGN_OR_RETURN(
        std::unique_ptr<copy::UnitReader> reader,
        source_.OpenUnit(layout_, unit, state.unordered ? std::nullopt : state.after));
    UnitRows rows;
    uint64_t counted = 0;
    BulkWriteOptions w;
    w.mode = WriteOp(options_.mode);
    w.max_group_rows = options_.max_group_rows;
    // Half the bulk writer's default: a group costs about twice this while it is written, per
    // stream, and a copy holds two stores' memory besides.
    w.max_group_bytes = 4u << 20;
    w.max_batches_in_flight = options_.max_batches_in_flight;
    w.retry_throttled = options_.retry_throttled;
    w.on_group_written = [&](const BulkWrittenGroup&, const BulkWriteReport& r) {
      Acknowledged(unit, rows, r.rows_written, &counted);
    };
    PARTKV_ASSIGN_OR_RETURN(BulkWriter writer, BulkWriter::Create(to_, w));
    size_t window = !options_.resume ? 0 : state.unordered ? SIZE_MAX : ResumeWindow();
    bool unordered = state.unordered;
    std::string last_pk, last_rk;  // the previous entity's keys, to see the order
    bool first = true;
    std::vector<Entity> chunk;
    Entity image;
    int64_t position = 0;
    uint64_t bytes_seen = 0;
    Status s;
    while (s.ok() && !stop_.load()) {
      s = reader->Next(&chunk);
      if (!s.ok() || chunk.empty()) break;
      bytes_read_ += reader->bytes_read() - bytes_seen;
      bytes_seen = reader->bytes_read();
      for (const Entity& entity : chunk) {
        ++rows_read_;
        if (!unordered) {
          const int order = entity.partition_key().compare(last_pk);
          if (!first && (order < 0 || (order == 0 && entity.row_key() <= last_rk))) {
            unordered = true;  // from now on the checkpoint records no key for this unit
            checkpoint_.Unordered(unit);
          }
          last_pk = entity.partition_key();
          last_rk = entity.row_key();
          first = false;
        }
        s = mapper_.Map(entity, &image);
        if (!s.ok()) {
          port::MutexLock lock(&mu_);
          rows_failed_ = 1;
          break;
        }
        if (window > 0) {
          --window;
          auto there = AlreadyThere(image);
          if (!there.ok()) {
            s = there.status();
            break;
          }
          if (*there) {
            // Interrupted runs in a row each wrote up to a window past the last row found there:
            // the window slides on from every row found.
            window = std::max(window, ResumeWindow());
            ++resent_;
            rows.Push({entity.partition_key(), entity.row_key(), "", "", -1});
            continue;
          }
        }
        rows.Push({entity.partition_key(), entity.row_key(), image.partition_key(), image.row_key(),
                   position++});
        s = writer.Add(image);
        if (!s.ok()) break;
      }
    }
    Status finished = writer.Finish();
    if (s.ok()) s = finished;
    const BulkWriteReport& report = writer.report();
    throttled_ += report.throttled;
    throttled_wait_ += report.throttled_wait_micros;
    if (s.ok() && !stop_.load()) {
      rows.Acknowledge(report.rows_written);
      checkpoint_.Done(unit);
      ++units_done_;
      PARTKV_RETURN_IF_ERROR(checkpoint_.Save());
      Progress();
      return Status::OK();
    }
    Acknowledged(unit, rows, report.rows_written, &counted);
    if (s.ok()) return s;  // another unit stopped the copy
    return Explain(s, report, rows);
  }

  // The error of a unit's writer, naming the source entity behind the row it names.
  Status Explain(const Status& s, const BulkWriteReport& report, const UnitRows& rows) {
    if (!report.bad_row) return s;
    const std::optional<Pending> row = rows.At(*report.bad_row);
    if (!row) return s;
    {
      port::MutexLock lock(&mu_);
      rows_failed_ = 1;
    }
    const std::string source = KeyText(row->source_pk, row->source_rk);
    const std::string image = KeyText(row->image_pk, row->image_rk);
    if (!s.IsAlreadyExists()) {
      return s.WithContext("source entity " + source);
    }
    if (mapper_.rekeys()) {
      auto other = FindOtherSource(*row);
      if (other.ok() && other->has_value()) {
        {
          port::MutexLock lock(&mu_);
          rekey_collisions_ = 1;
        }
        return Status::AlreadyExists("re-keying maps source entities " +
                                     KeyText((*other)->first, (*other)->second) + " and " + source +
                                     " to one destination key " + image);
      }
    }
    return Status::AlreadyExists("destination table '" + to_.name() + "' already has the entity " +
                                 image + " (copying source entity " + source +
                                 "; an insert copy does not overwrite: --mode upsert or merge "
                                 "does)");
  }

  // Another source entity whose image has `row`'s destination key: the source is read again.
  Result<std::optional<std::pair<std::string, std::string>>> FindOtherSource(const Pending& row) {
    std::vector<Entity> chunk;
    Entity image;
    for (size_t unit = 0; unit < layout_.units(); ++unit) {
      PARTKV_ASSIGN_OR_RETURN(std::unique_ptr<copy::UnitReader> reader,
                              source_.OpenUnit(layout_, unit, std::nullopt));
      for (;;) {
        PARTKV_RETURN_IF_ERROR(reader->Next(&chunk));
        if (chunk.empty()) break;
        for (const Entity& entity : chunk) {
          if (!mapper_.Map(entity, &image).ok()) continue;
          if (image.partition_key() != row.image_pk || image.row_key() != row.image_rk) continue;
          if (entity.partition_key() == row.source_pk && entity.row_key() == row.source_rk) {
            continue;
          }
          return std::optional<std::pair<std::string, std::string>>(
              std::in_place, entity.partition_key(), entity.row_key());
        }
      }
    }
    return std::optional<std::pair<std::string, std::string>>();
  }

  const Table& from_;
  Table to_;
  const CopyOptions& options_;
  const CopyMapper& mapper_;
  const Source& source_;
  Checkpoint& checkpoint_;
  const SourceLayout layout_;
  const bool remote_destination_;
  uint64_t source_bytes_ = 0;

  std::atomic<size_t> next_unit_{0};
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> rows_read_{0}, rows_written_{0}, resent_{0}, throttled_{0}, bytes_read_{0};
  std::atomic<int64_t> throttled_wait_{0};
  std::atomic<uint32_t> units_done_{0}, units_skipped_{0};
  port::Mutex progress_mu_;
  port::Mutex mu_;
  Status error_ PARTKV_GUARDED_BY(mu_);
  uint64_t rows_failed_ PARTKV_GUARDED_BY(mu_) = 0;
  uint64_t rekey_collisions_ PARTKV_GUARDED_BY(mu_) = 0;
};

}  // namespace

Result<CopyReport> CopyTable(const Table& from, const Table& to, const CopyOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  PARTKV_ASSIGN_OR_RETURN(CopyMapper mapper, CopyMapper::Create(options));
  const engine::TableHandle* local_from = FrontAccess::LocalOf(from);
  const engine::TableHandle* local_to = FrontAccess::LocalOf(to);
  if (local_from != nullptr && local_to != nullptr && &local_from->data() == &local_to->data()) {
    return Status::InvalidArgument("the source and the destination are one table, '" + from.name() +
                                   "'");
  }
  const copy::CopyIdentity identity{options.identity, from.name(), to.name(), mapper.Describe()};
  PARTKV_ASSIGN_OR_RETURN(Source source, Source::Open(from, mapper));
  CopyReport report;
  std::unique_ptr<Checkpoint> checkpoint;
  if (options.resume) {
    PARTKV_ASSIGN_OR_RETURN(checkpoint, Checkpoint::Resume(options.checkpoint, identity));
    if (source.local()) {
      PARTKV_RETURN_IF_ERROR(checkpoint->CheckLocalLayout(source.LocalLayout().partitions));
    } else if (checkpoint->layout().local) {
      return Status::InvalidArgument("checkpoint '" + options.checkpoint +
                                     "' is of a copy from a local source, not a remote one");
    }
  } else {
    SourceLayout layout;
    if (source.local()) {
      layout = source.LocalLayout();
    } else {
      PARTKV_ASSIGN_OR_RETURN(
          layout,
          source.PlanRemoteRanges(options.streams == 1 ? 1 : options.streams * 4, &report.probes));
    }
    PARTKV_ASSIGN_OR_RETURN(
        checkpoint, Checkpoint::Start(options.checkpoint, identity, std::move(layout),
                                      WindowOf(options, FrontAccess::LocalOf(to) == nullptr)));
  }
  PARTKV_RETURN_IF_ERROR(checkpoint->Save());
  const PartitionStats from_before = from.Statistics(0).total;
  const PartitionStats to_before = to.Statistics(0).total;
  CopyRun run(from, to, options, mapper, source, *checkpoint);
  run.Run(&report);
  const PartitionStats from_after = from.Statistics(0).total;
  const PartitionStats to_after = to.Statistics(0).total;
  if (FrontAccess::LocalOf(from) == nullptr) {
    report.service_throttled += from_after.throttled - from_before.throttled;
    report.retry_wait_micros +=
        static_cast<int64_t>(from_after.retry_wait_micros - from_before.retry_wait_micros);
  }
  if (FrontAccess::LocalOf(to) == nullptr) {
    report.service_throttled += to_after.throttled - to_before.throttled;
    report.retry_wait_micros +=
        static_cast<int64_t>(to_after.retry_wait_micros - to_before.retry_wait_micros);
  }
  if (report.error.ok()) {
    Status removed = checkpoint->Remove();
    if (!removed.ok()) report.error = removed;
  }
  report.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - started);
  return report;
}

}  // namespace partkv
