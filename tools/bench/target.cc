#include "tools/bench/target.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <thread>

#include "engine/port/mutex.h"
#include "fmt/format.h"
#include "partkv/store.h"
#include "tools/bench/format.h"

namespace partkv::compare {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Rounds of a batch that ends Throttled after the store's own retries before the run gives up.
constexpr int kMaxRounds = 20;
// Shares of the progress fraction.
constexpr double kWriteShare = 0.7;

// Builds `plan`'s batch in `batch` and submits it, again while the answer is Throttled (after
// its retry-after wait, counted in `resent`), at most kMaxRounds times. The last answer.
Status SubmitPlan(Table& table, const DataSet& data, const KeyStrategy& row_key,
                  const BatchPlan& plan, Batch* batch, std::atomic<uint64_t>* resent) {
  batch->Clear();
  Status s;
  for (uint32_t i : plan.events) {
    Result<Entity> e = PlannedEntity(data, i, plan.partition_key, row_key);
    if (!e.ok()) {
      s = e.status();
      break;
    }
    batch->Insert(std::move(*e));
  }
  for (int round = 1; s.ok() || s.IsThrottled(); ++round) {
    if (round > 1) {
      resent->fetch_add(1);
      std::this_thread::sleep_for(s.retry_after());
    }
    auto done = table.Submit(*batch);
    s = done.status();
    if (round == kMaxRounds || s.ok()) break;
  }
  return s;
}

// Writes: each batch at its replay time, `in_flight` senders; the calling thread is sender 0
// and the only one to report progress. Fills the write figures of `t`; the first failure.
Status WriteAtReplayPace(Table& table, const TargetOptions& options, const KeyStrategy& row_key,
                         const DataSet& data, const std::vector<BatchPlan>& plans,
                         const std::function<void(double)>& tick, TargetStats* t) {
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> written{0}, resent{0};
  std::atomic<bool> failed{false};
  // Guards write_error and max_lag while the senders run (locals, which clang's annotations
  // cannot mark guarded); the senders are joined before they are read.
  port::Mutex mu;
  Status write_error;
  double max_lag = 0;
  const int64_t first = plans.empty() ? 0 : plans.front().send_micros;
  const auto start = SteadyClock::now();
  auto send = [&](bool reporter) {
    Batch batch;
    for (size_t k; !failed.load() && (k = next.fetch_add(1)) < plans.size();) {
      const BatchPlan& plan = plans[k];
      const auto due = start + std::chrono::microseconds(plan.send_micros - first);
      std::this_thread::sleep_until(due);  // the replay's pace, not a synchronisation
      const double lag = std::chrono::duration<double>(SteadyClock::now() - due).count();
      Status s = SubmitPlan(table, data, row_key, plan, &batch, &resent);
      port::MutexLock lock(&mu);
      max_lag = std::max(max_lag, lag);
      if (!s.ok()) {
        if (write_error.ok()) {
          write_error =
              s.WithContext(fmt::format("batch {} of {} ({} entities of {})", k + 1, plans.size(),
                                        plan.events.size(), plan.partition_key));
        }
        failed = true;
        return;
      }
      written.fetch_add(plan.events.size());
      if (reporter && k % 16 == 0) tick(kWriteShare * static_cast<double>(k) / plans.size());
    }
  };
  std::vector<std::thread> senders;
  for (size_t i = 1; i < std::max<size_t>(options.in_flight, 1); ++i) {
    senders.emplace_back(send, false);
  }
  send(true);
  for (std::thread& s : senders) s.join();
  t->write_seconds = SecondsSince(start);
  t->entities_written = written.load();
  t->batches = plans.size();
  t->batches_resent = resent.load();
  t->max_lag_seconds = max_lag;
  t->offered_seconds =
      plans.empty() ? 0 : static_cast<double>(plans.back().send_micros - first) / 1e6;
  const PartitionStats counted = table.Statistics(0).total;
  t->throttled_answers = counted.throttled;
  t->retry_wait_seconds = static_cast<double>(counted.retry_wait_micros) / 1e6;
  return write_error;
}

}  // namespace

std::string TargetProfile(const std::string& location) {
  std::string lower = location;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find(".cosmos.") != std::string::npos ? "cosmos" : "azure-table";
}

Result<TargetStats> RunOnTarget(Store& store, const TargetOptions& options,
                                const StrategySpec& spec, const KeyStrategy& row_key,
                                const DataSet& data, const std::vector<BatchPlan>& plans,
                                const std::vector<ReadSpec>& reads,
                                const std::vector<std::vector<SampledRead>>& samples,
                                const std::function<void(double)>& tick) {
  TargetStats t;
  t.table = options.table_prefix + spec.table_name;
  t.kept = options.keep_tables;
  PARTKV_RETURN_IF_ERROR(
      store.CreateTable(t.table).WithContext("create table " + t.table + " on the target"));
  OpenTableOptions schemes;
  schemes.partition_key_scheme = spec.partition_key;
  schemes.row_key_scheme = row_key;
  Result<Table> opened = store.OpenTable(t.table, schemes);
  Status outcome = opened.status();
  if (outcome.ok()) {
    Table& table = *opened;
    outcome = WriteAtReplayPace(table, options, row_key, data, plans, tick, &t)
                  .WithContext("writes of " + spec.label + " to the target");
    // Reads: the local run's, on the endpoint.
    if (outcome.ok()) {
      outcome = MeasureReads(table, spec, row_key, reads, samples, &t.reads, [&](double f) {
                  tick(kWriteShare + (1 - kWriteShare) * f);
                }).WithContext("reads of " + spec.label + " on the target");
    }
  }
  if (!options.keep_tables) {
    Status dropped = store.DropTable(t.table);
    if (outcome.ok() && !dropped.ok()) {
      outcome = dropped.WithContext("delete table " + t.table + " on the target");
    }
  }
  PARTKV_RETURN_IF_ERROR(outcome);
  return t;
}

}  // namespace partkv::compare
