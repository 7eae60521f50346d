#include "tools/bench/comparison.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>
#include <random>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "fmt/format.h"
#include "partkv/store.h"
#include "rocksdb/version.h"
#include "tools/bench/disk.h"
#include "tools/bench/format.h"
#include "tools/bench/reads.h"
#include "tools/bench/strategies.h"
#include "tools/bench/target.h"
#include "tools/bench/throttle_replay.h"
#include "tools/common/machine.h"

#ifndef PARTKV_BENCH_BUILD_TYPE
#define PARTKV_BENCH_BUILD_TYPE "unknown"
#endif

namespace partkv::compare {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Relative cost of each step per entity, for the progress fraction only.
constexpr double kWriteWeight = 1.0, kRawWeight = 0.35, kPlanWeight = 0.1, kAnalyzeWeight = 0.25,
                 kReadWeight = 0.5, kThrottleWeight = 0.7, kTargetWeight = 4.0;

// Turns step-local fractions into the run's fraction for a ProgressSink.
// Also times each phase (the part of a step's name before ':').
class Tracker {
 public:
  Tracker(ProgressSink* sink, double total) : sink_(sink), total_(std::max(total, 1.0)) {}
  void Step(std::string what, double units) {
    const auto now = SteadyClock::now();
    if (!what_.empty()) {
      const std::string phase = what_.substr(0, what_.find(':'));
      auto it = std::find_if(phases_.begin(), phases_.end(),
                             [&](const auto& p) { return p.first == phase; });
      if (it == phases_.end()) it = phases_.insert(phases_.end(), {phase, 0.0});
      it->second += std::chrono::duration<double>(now - step_start_).count();
    }
    step_start_ = now;
    done_ += units_;
    units_ = units;
    what_ = std::move(what);
    Tick(0);
  }
  const std::vector<std::pair<std::string, double>>& phases() const { return phases_; }
  void Tick(double fraction) {
    if (sink_ != nullptr) sink_->Show(std::min(1.0, (done_ + units_ * fraction) / total_), what_);
  }
  std::function<void(double)> Ticker() {
    return [this](double f) { Tick(f); };
  }

 private:
  ProgressSink* sink_;
  double total_;
  double done_ = 0, units_ = 0;
  std::string what_;
  SteadyClock::time_point step_start_;
  std::vector<std::pair<std::string, double>> phases_;
};

Status Check(bool ok, const std::string& what) {
  return ok ? Status::OK() : Status::Corruption("consistency check failed: " + what);
}

// MemTotal of /proc/meminfo in GiB: "23.5 GiB".
std::string MemoryTotal() {
  const std::string kb = tools::FirstLineWith("/proc/meminfo", "MemTotal");
  const double v = std::strtod(kb.c_str(), nullptr);
  return v > 0 ? fmt::format("{:.1f} GiB", v / (1024 * 1024)) : kb;
}

// A batch's failure as the user's input explains it: two entities given the same keys by the
// strategy and the RowKey scheme (AlreadyExists: an earlier batch holds the pair; InvalidArgument
// on a repeated key: the same batch does) name the entity's line; anything else is the store's.
Status DuplicateKeyError(const DataSet& data, const BatchPlan& plan, const Batch& batch,
                         const Status& status, const std::string& label,
                         const KeyStrategy& row_key) {
  const int op = status.failed_op();
  const bool repeated =
      status.IsAlreadyExists() ||
      (status.IsInvalidArgument() &&
       std::string_view(status.message()).find("is already present in the batch") !=
           std::string_view::npos);
  if (!repeated || op < 0 || static_cast<size_t>(op) >= plan.events.size()) {
    return status.WithContext("write " + label);
  }
  const Entity& e = batch.ops()[op].entity;
  return EntityError(
      data, plan.events[op],
      Status::InvalidArgument(fmt::format(
          "PartitionKey '{}' and RowKey '{}' are already another entity's: the RowKey must be "
          "unique within each partition (choose a --row-key that is)",
          e.partition_key(), e.row_key())),
      fmt::format("strategy {} with RowKey {}", label, row_key.ToString()));
}

// Batches per turn of the interleaved writes.
constexpr size_t kChunkBatches = 16;
// The longest the comparison waits for the store's flushes and compactions to end.
constexpr std::chrono::minutes kSettleTimeout{10};

// Writes `plans` through Table::Submit and, interleaved chunk by chunk (the side going first
// alternating), the same key/value bytes in the same batches to a raw RocksDB database; each
// side is timed around its calls only, so entity building and encoding are not counted. Then
// flushes both, lets background work settle and records the raw side's bytes on disk.
Status WriteInterleaved(Store& store, Table& table, const std::string& raw_path,
                        const DataSet& data, const KeyStrategy& row_key,
                        const std::vector<BatchPlan>& plans, uint32_t partitions, StrategyResult* r,
                        Tracker* tracker) {
  PARTKV_ASSIGN_OR_RETURN(std::unique_ptr<RawDb> raw, RawDb::Create(raw_path, store, partitions));
  const int64_t ticks =
      DateTime::FromUnixMicros(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count())
          .ticks;
  uint64_t etag = 1;
  std::vector<Batch> batches;
  std::vector<std::vector<StoredEntity>> raw_batches;
  std::vector<size_t> raw_partitions;
  for (size_t begin = 0, chunk = 0; begin < plans.size(); begin += kChunkBatches, ++chunk) {
    const size_t end = std::min(plans.size(), begin + kChunkBatches);
    batches.clear();
    raw_batches.clear();
    raw_partitions.clear();
    for (size_t k = begin; k < end; ++k) {
      Batch& batch = batches.emplace_back();
      std::vector<StoredEntity>& writes = raw_batches.emplace_back();
      for (uint32_t i : plans[k].events) {
        PARTKV_ASSIGN_OR_RETURN(Entity e, PlannedEntity(data, i, plans[k].partition_key, row_key));
        writes.push_back(EncodeStoredEntity(e, DateTime{ticks}, etag++));
        batch.Insert(std::move(e));
      }
      raw_partitions.push_back(table.PhysicalPartitionOf(plans[k].partition_key));
    }
    auto partkv_side = [&]() -> Status {
      for (size_t b = 0; b < batches.size(); ++b) {
        const Batch& batch = batches[b];
        const auto start = SteadyClock::now();
        const double cpu_start = ThreadCpuSeconds();
        auto written = table.Submit(batch);
        r->write_cpu_seconds += ThreadCpuSeconds() - cpu_start;
        r->write_seconds += SecondsSince(start);
        if (!written.ok()) {
          return DuplicateKeyError(data, plans[begin + b], batch, written.status(), r->label,
                                   row_key);
        }
        r->entities_written += batch.size();
      }
      return Status::OK();
    };
    auto raw_side = [&]() -> Status {
      for (size_t b = 0; b < raw_batches.size(); ++b) {
        const auto start = SteadyClock::now();
        Status s = raw->WriteBatch(raw_partitions[b], raw_batches[b]);
        r->raw_write_seconds += SecondsSince(start);
        PARTKV_RETURN_IF_ERROR(s.WithContext("raw write " + r->label));
      }
      return Status::OK();
    };
    if (chunk % 2 == 0) {
      PARTKV_RETURN_IF_ERROR(partkv_side());
      PARTKV_RETURN_IF_ERROR(raw_side());
    } else {
      PARTKV_RETURN_IF_ERROR(raw_side());
      PARTKV_RETURN_IF_ERROR(partkv_side());
    }
    if (chunk % 4 == 0) tracker->Tick(static_cast<double>(end) / plans.size());
  }
  r->batches = plans.size();

  tracker->Step("flushing and settling: " + r->label, 0);
  PARTKV_RETURN_IF_ERROR(store.Flush());
  (void)store.AwaitBackgroundWork(kSettleTimeout);  // Busy: measured unsettled, as `settled` says
  PARTKV_RETURN_IF_ERROR(raw->FlushAndSettle());
  r->raw_bytes_on_disk = raw->SstBytes();
  raw.reset();
  std::error_code ec;
  std::filesystem::remove_all(raw_path, ec);
  return Status::OK();
}

double PeakHourHotShare(const Peaks& peaks, const std::vector<BatchPlan>& plans) {
  std::unordered_map<std::string_view, uint64_t> per_key;
  uint64_t total = 0, hottest = 0;
  for (const BatchPlan& p : plans) {
    for (uint32_t i : p.events) {
      if (i < peaks.hour_begin || i >= peaks.hour_end) continue;
      hottest = std::max(hottest, ++per_key[p.partition_key]);
      ++total;
    }
  }
  return total > 0 ? static_cast<double>(hottest) / total : 0;
}

std::string DayText(int64_t unix_micros) {
  return DateTime::FromUnixMicros(unix_micros).ToString().substr(0, 10);
}

WorkloadSummary Summarize(const DataSet& data, const Peaks& peaks, const Workload* built_in,
                          const std::string& time_attribute, const KeyStrategy& row_key) {
  WorkloadSummary s;
  s.source = data.source();
  s.built_in = built_in != nullptr;
  s.events = data.size();
  s.days = peaks.days;
  if (built_in != nullptr) {
    s.devices = built_in->options().devices;
    s.seed = built_in->options().seed;
  }
  s.time_attribute = time_attribute;
  s.first_day = DayText(data.TimeMicros(0));
  s.last_day = DayText(data.TimeMicros(data.size() - 1));
  s.burst_day = DayText(peaks.day_start_micros);
  s.burst_hour = DateTime::FromUnixMicros(peaks.hour_start_micros).ToString().substr(0, 16);
  s.burst_hour[10] = ' ';
  s.burst_hour_events = peaks.hour_end - peaks.hour_begin;
  s.busiest_day_events = peaks.day_end - peaks.day_begin;
  auto sizes = data.SampleValueSizes();
  s.mean_value_bytes = sizes.mean;
  s.min_value_bytes = sizes.min;
  s.max_value_bytes = sizes.max;
  s.row_key = row_key.ToString();
  s.attributes = data.attributes();
  return s;
}

}  // namespace

uint64_t KeySeed(uint64_t workload_seed) { return workload_seed ^ 0x6b6579735f736565ULL; }

std::vector<int64_t> ReplayTimes(const DataSet& data, double replay_rate) {
  // Real span / replay span = (last - first time) / (entities / replay_rate). A timeline without
  // extent (every entity at one time) is replayed in order at the rate.
  const size_t n = data.size();
  std::vector<int64_t> out;
  out.reserve(n);
  const int64_t t0 = n > 0 ? data.TimeMicros(0) : 0;
  const double real_micros = n > 0 ? static_cast<double>(data.TimeMicros(n - 1) - t0) : 0;
  const double replay_micros = static_cast<double>(n) / replay_rate * 1e6;
  for (size_t i = 0; i < n; ++i) {
    if (real_micros <= 0) {
      out.push_back(static_cast<int64_t>(static_cast<double>(i) / replay_rate * 1e6));
    } else {
      const double real = static_cast<double>(data.TimeMicros(i) - t0);
      out.push_back(static_cast<int64_t>(real / real_micros * replay_micros));
    }
  }
  return out;
}

Peaks FindPeaks(const DataSet& data) {
  Peaks p;
  const size_t n = data.size();
  if (n == 0) return p;
  constexpr int64_t kHour = 3600LL * 1000000, kDay = 24 * kHour;
  auto floor_div = [](int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0 ? 1 : 0); };
  // Entities are in time order: each hour and day is one run of them.
  auto busiest = [&](int64_t unit, size_t* begin, size_t* end, int64_t* start) {
    size_t run_begin = 0;
    for (size_t i = 1; i <= n; ++i) {
      if (i < n &&
          floor_div(data.TimeMicros(i), unit) == floor_div(data.TimeMicros(run_begin), unit)) {
        continue;
      }
      if (i - run_begin > *end - *begin) {
        *begin = run_begin;
        *end = i;
        *start = floor_div(data.TimeMicros(run_begin), unit) * unit;
      }
      run_begin = i;
    }
  };
  busiest(kHour, &p.hour_begin, &p.hour_end, &p.hour_start_micros);
  busiest(kDay, &p.day_begin, &p.day_end, &p.day_start_micros);
  p.days = static_cast<uint32_t>(floor_div(data.TimeMicros(n - 1), kDay) -
                                 floor_div(data.TimeMicros(0), kDay) + 1);
  return p;
}

std::vector<std::pair<std::string, std::string>> MachineFacts() {
#ifdef NDEBUG
  const char* asserts = "off";
#else
  const char* asserts = "on";
#endif
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  return {
      {"cpu", tools::FirstLineWith("/proc/cpuinfo", "model name")},
      {"cores", std::to_string(std::thread::hardware_concurrency())},
      {"memory", MemoryTotal()},
      {"compiler", __VERSION__},
      {"build", fmt::format("{} (partkv assertions {})", PARTKV_BENCH_BUILD_TYPE, asserts)},
      {"RocksDB", fmt::format("{}.{}.{}", ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH)},
      {"date", date},
  };
}

namespace {

// What every step of a comparison reads: the data, and what the options choose for it.
struct Inputs {
  const ComparisonOptions& options;
  std::shared_ptr<const Workload> built_in;  // null for the user's data
  std::shared_ptr<const DataSet> data;
  std::vector<StrategySpec> specs;
  KeyStrategy row_key;
  std::vector<ReadSpec> read_specs;
  std::vector<int64_t> replay;
  Peaks peaks;
  uint64_t key_seed;
  uint32_t partitions;
  double n;          // the data's entities
  double burst_day;  // the entities of the busiest day
};

Status CheckOptions(const ComparisonOptions& options) {
  if (options.data == nullptr && (options.workload.events == 0 || options.workload.days == 0)) {
    return Status::InvalidArgument("the workload needs at least one event and one day");
  }
  if (options.physical_partitions < 1 || options.physical_partitions > 1024) {
    return Status::InvalidArgument("physical partitions must be 1..1024");
  }
  if (!(options.replay_rate > 0)) return Status::InvalidArgument("the replay rate must be > 0");
  return Status::OK();
}

// The built-in strategies, RowKey scheme and reads where the options name none.
Inputs MakeInputs(const ComparisonOptions& options, std::shared_ptr<const Workload> built_in,
                  std::shared_ptr<const DataSet> data_holder) {
  const DataSet& data = *data_holder;
  const Peaks peaks = FindPeaks(data);
  return Inputs{
      .options = options,
      .built_in = std::move(built_in),
      .data = std::move(data_holder),
      .specs = options.strategies.empty() ? DefaultStrategies() : options.strategies,
      .row_key = options.row_key ? *options.row_key : RowKeyScheme(),
      // The built-in reads only for the built-in data: the user's data is read as the user says.
      .read_specs =
          options.reads.empty() && options.data == nullptr ? DefaultReads() : options.reads,
      .replay = ReplayTimes(data, options.replay_rate),
      .peaks = peaks,
      .key_seed = KeySeed(options.workload.seed),
      .partitions = options.physical_partitions,
      .n = static_cast<double>(data.size()),
      .burst_day = static_cast<double>(peaks.day_end - peaks.day_begin),
  };
}

// The result's facts known before anything runs: the workload and the reads.
ComparisonResult StartResult(const Inputs& in) {
  ComparisonResult result;
  result.physical_partitions = in.partitions;
  result.replay_rate = in.options.replay_rate;
  result.workload =
      Summarize(*in.data, in.peaks, in.built_in.get(),
                in.built_in != nullptr ? "time" : in.options.time_attribute, in.row_key);
  for (const ReadSpec& r : in.read_specs) result.reads.push_back({r.name, r.attributes, r.weight});
  return result;
}

// The whole run's progress units, each step's weighted by its entities.
double ProgressUnits(const Inputs& in) {
  const ComparisonOptions& options = in.options;
  const std::vector<StrategySpec>& specs = in.specs;
  const double n = in.n;
  return n * (kAnalyzeWeight +
              specs.size() * (kPlanWeight + kWriteWeight + kRawWeight + kReadWeight)) +
         in.burst_day * kThrottleWeight * specs.size() * options.throttle_profiles.size() +
         (options.target.location.empty() ? 0 : n * kTargetWeight * specs.size());
}

// The analyzer's view of every strategy, from one pass over the entities.
Result<std::vector<Analyzer>> AnalyzeData(const Inputs& in, Tracker* tracker) {
  const DataSet& data = *in.data;
  const KeyStrategy& row_key = in.row_key;
  std::vector<Analyzer> analyzers;
  for (const StrategySpec& spec : in.specs) {
    AnalyzerOptions ao;
    ao.physical_partitions = in.partitions;
    ao.seed = in.key_seed;
    PARTKV_ASSIGN_OR_RETURN(Analyzer a, Analyzer::Create(spec.partition_key, ao));
    analyzers.push_back(std::move(a));
  }
  tracker->Step("analyzing the data", in.n * kAnalyzeWeight);
  for (size_t i = 0; i < data.size(); ++i) {
    // The whole entity: the analyzer's cloud costs count every property's bytes.
    PARTKV_ASSIGN_OR_RETURN(Entity e, data.MakeEntity(i));
    auto rk = row_key.Compute(data.Attributes(i));
    if (!rk.ok()) return EntityError(data, i, rk.status(), "--row-key " + row_key.ToString());
    e.set_row_key(std::move(*rk));
    for (Analyzer& a : analyzers) a.Add(e);
    if (i % 4096 == 0) tracker->Tick(static_cast<double>(i) / in.n);
  }
  return analyzers;
}

// Strategy `s`'s result as the analyzer sees it; fails when the analyzer could not key an entity.
Status RecordAnalysis(const Inputs& in, size_t s, Analyzer& analyzer, StrategyResult* r) {
  const StrategySpec& spec = in.specs[s];
  r->label = spec.label;
  r->strategy = spec.partition_key.ToString();
  r->explanation = spec.explanation;
  r->suggested = spec.suggested;
  r->table = spec.table_name;
  r->analysis = analyzer.Finish();
  if (r->analysis.errors > 0) {
    // An entity the strategy cannot key: planning names its line (InvalidArgument).
    PARTKV_RETURN_IF_ERROR(PlanBatches(*in.data, spec, in.key_seed, in.replay).status());
  }
  return Check(r->analysis.errors == 0, r->label + ": the analyzer could not key " +
                                            std::to_string(r->analysis.errors) + " entities (" +
                                            r->analysis.first_error + ")");
}

// Strategy `s`'s batches, checked to hold every entity once; with the burst's hot share and the
// shards the batches use.
Status PlanStrategy(const Inputs& in, size_t s, std::vector<BatchPlan>* plans, StrategyResult* r,
                    Tracker* tracker) {
  const StrategySpec& spec = in.specs[s];
  const DataSet& data = *in.data;
  tracker->Step("planning batches: " + spec.label, in.n * kPlanWeight);
  PARTKV_ASSIGN_OR_RETURN(*plans, PlanBatches(data, spec, in.key_seed, in.replay));
  uint64_t planned = 0;
  for (const BatchPlan& p : *plans) planned += p.events.size();
  PARTKV_RETURN_IF_ERROR(Check(
      planned == data.size(),
      fmt::format("{}: {} entities planned, the data has {}", r->label, planned, data.size())));
  r->peak_hour_hot_share = PeakHourHotShare(in.peaks, *plans);
  if (spec.partition_key.is_sharded()) {
    std::unordered_set<std::string_view> suffixes;
    for (const BatchPlan& p : *plans) {
      const std::string_view key = p.partition_key;
      suffixes.insert(key.substr(key.rfind('.') + 1));
    }
    r->shard_count = spec.partition_key.shard_count();
    r->shards_used = suffixes.size();
  }
  return Status::OK();
}

// Creates strategy `s`'s table in `store` (appended to `tables`) and writes its batches to it and
// to a raw RocksDB database.
Status WriteStrategy(const Inputs& in, size_t s, Store& store, const std::vector<BatchPlan>& plans,
                     std::vector<Table>* tables, StrategyResult* r, Tracker* tracker) {
  const StrategySpec& spec = in.specs[s];
  TableOptions to;
  to.physical_partitions = in.partitions;
  to.partition_key_scheme = spec.partition_key;
  to.row_key_scheme = in.row_key;
  PARTKV_RETURN_IF_ERROR(store.CreateTable(spec.table_name, to));
  PARTKV_ASSIGN_OR_RETURN(Table table, store.OpenTable(spec.table_name));
  tables->push_back(table);

  tracker->Step("writing: " + spec.label, in.n * (kWriteWeight + kRawWeight));
  return WriteInterleaved(store, tables->back(), in.options.work_dir + "/raw-" + std::to_string(s),
                          *in.data, in.row_key, plans, in.partitions, r, tracker);
}

// The layout on disk, checked against the workload and the analyzer.
Status CheckLayoutOnDisk(const Inputs& in, Store& store, const std::vector<Table>& tables,
                         ComparisonResult* result, Tracker* tracker) {
  const DataSet& data = *in.data;
  tracker->Step("checking the layout on disk", 0);
  PARTKV_RETURN_IF_ERROR(store.Flush());
  result->settled = store.AwaitBackgroundWork(kSettleTimeout).ok();
  for (size_t s = 0; s < in.specs.size(); ++s) {
    StrategyResult& r = result->strategies[s];
    PARTKV_ASSIGN_OR_RETURN(TableCensus census, tables[s].Census(CensusOptions{.top = 0}));
    r.bytes_on_disk = census.sst_bytes;
    r.lsm_shape = LsmShape(census);
    r.physical_on_disk = EntitiesPerPartition(census);
    PARTKV_RETURN_IF_ERROR(
        Check(r.entities_written == data.size() && r.entities_on_disk() == data.size(),
              fmt::format("{}: {} written, {} on disk, the data has {}", r.label,
                          r.entities_written, r.entities_on_disk(), data.size())));
    PARTKV_RETURN_IF_ERROR(Check(r.physical_on_disk == r.analysis.physical_counts,
                                 r.label + ": the entities per physical partition on disk "
                                           "differ from the analyzer's"));
  }
  return Status::OK();
}

// Reads on disk: the same samples for every strategy.
Status ReadOnDisk(const Inputs& in, const std::vector<Table>& tables,
                  const std::vector<std::vector<SampledRead>>& samples, ComparisonResult* result,
                  Tracker* tracker) {
  const std::vector<StrategySpec>& specs = in.specs;
  for (size_t s = 0; s < specs.size(); ++s) {
    StrategyResult& r = result->strategies[s];
    tracker->Step("reading: " + specs[s].label, in.n * kReadWeight);
    PARTKV_RETURN_IF_ERROR(MeasureReads(tables[s], specs[s], in.row_key, in.read_specs, samples,
                                        &r.reads, tracker->Ticker())
                               .WithContext("reads of " + r.label));
    for (const ReadStats& rs : r.reads) {
      PARTKV_RETURN_IF_ERROR(Check(
          rs.mismatches == 0, fmt::format("{}: {} of {} reads ({}: {}) returned other "
                                          "entities than the data holds",
                                          r.label, rs.mismatches, rs.samples, rs.name, rs.how)));
    }
  }
  return Status::OK();
}

// The busiest day, offered under each profile with throttling on, on a manual clock.
Status ReplayBusiestDay(const Inputs& in, const std::vector<std::vector<BatchPlan>>& plans,
                        ComparisonResult* result, Tracker* tracker) {
  const std::vector<StrategySpec>& specs = in.specs;
  const Peaks& peaks = in.peaks;
  auto clock = std::make_shared<ManualClock>(1'000'000);
  StoreOptions so;
  so.clock = clock;
  PARTKV_ASSIGN_OR_RETURN(Store throttle_store, Store::Open(in.options.work_dir + "/throttle", so));
  for (size_t s = 0; s < specs.size(); ++s) {
    std::vector<const BatchPlan*> day;
    for (const BatchPlan& p : plans[s]) {
      const size_t first = p.events.front();
      if (first >= peaks.day_begin && first < peaks.day_end) day.push_back(&p);
    }
    for (size_t k = 0; k < in.options.throttle_profiles.size(); ++k) {
      const std::string& profile = in.options.throttle_profiles[k];
      tracker->Step(fmt::format("throttled replay: {} under {}", specs[s].label, profile),
                    in.burst_day * kThrottleWeight);
      PARTKV_ASSIGN_OR_RETURN(
          ThrottleStats t,
          ReplayThrottled(throttle_store, *clock, fmt::format("T{}{}", specs[s].table_name, k),
                          specs[s], in.row_key, profile, in.partitions, *in.data, day,
                          tracker->Ticker()));
      PARTKV_RETURN_IF_ERROR(
          Check(t.store_throttled == t.throttled_calls,
                fmt::format("{} under {}: {} calls throttled, the table "
                            "counted {}",
                            specs[s].label, profile, t.throttled_calls, t.store_throttled)));
      result->strategies[s].throttle.push_back(std::move(t));
    }
  }
  return Status::OK();
}

// The same batches and reads against the target endpoint.
Status RunAgainstTarget(const Inputs& in, const std::vector<std::vector<BatchPlan>>& plans,
                        const std::vector<std::vector<SampledRead>>& samples,
                        ComparisonResult* result, Tracker* tracker) {
  const DataSet& data = *in.data;
  const std::vector<StrategySpec>& specs = in.specs;
  TargetOptions target = in.options.target;
  if (target.table_prefix.empty()) {
    target.table_prefix = fmt::format("pkvb{:08x}", std::random_device{}());
  }
  result->target = Store::RedactLocation(target.location);
  result->target_profile = TargetProfile(target.location);
  Result<Store> remote = Store::Open(target.location);
  if (!remote.ok()) return remote.status().WithContext("--target");
  for (size_t s = 0; s < specs.size(); ++s) {
    StrategyResult& r = result->strategies[s];
    tracker->Step("on the target: " + specs[s].label, in.n * kTargetWeight);
    PARTKV_ASSIGN_OR_RETURN(TargetStats t,
                            RunOnTarget(*remote, target, specs[s], in.row_key, data, plans[s],
                                        in.read_specs, samples, tracker->Ticker()));
    PARTKV_RETURN_IF_ERROR(Check(t.entities_written == data.size(),
                                 fmt::format("{}: {} written to the target, the data has {}",
                                             r.label, t.entities_written, data.size())));
    for (const ReadStats& rs : t.reads) {
      PARTKV_RETURN_IF_ERROR(Check(
          rs.mismatches == 0, fmt::format("{}: {} of {} reads ({}: {}) on the target returned "
                                          "other entities than the data holds",
                                          r.label, rs.mismatches, rs.samples, rs.name, rs.how)));
    }
    r.target = std::move(t);
  }
  return Status::OK();
}

}  // namespace

Result<ComparisonResult> RunComparison(const ComparisonOptions& options, ProgressSink* sink) {
  const auto wall_start = SteadyClock::now();
  PARTKV_RETURN_IF_ERROR(CheckOptions(options));
  std::shared_ptr<const Workload> built_in;
  std::shared_ptr<const DataSet> data = options.data;
  if (data == nullptr) {
    built_in = std::make_shared<const Workload>(Workload::Generate(options.workload));
    data = std::make_shared<const DataSet>(DataSet::FromWorkload(built_in));
  }
  if (data->size() == 0) return Status::InvalidArgument("the data has no entities");
  const Inputs in = MakeInputs(options, std::move(built_in), std::move(data));
  ComparisonResult result = StartResult(in);
  Tracker tracker(sink, ProgressUnits(in));
  PARTKV_ASSIGN_OR_RETURN(std::vector<Analyzer> analyzers, AnalyzeData(in, &tracker));

  // Each strategy planned and written to one store, each to its own table.
  PARTKV_ASSIGN_OR_RETURN(Store store, Store::Open(options.work_dir + "/store"));
  std::vector<Table> tables;
  std::vector<std::vector<BatchPlan>> plans(in.specs.size());
  for (size_t s = 0; s < in.specs.size(); ++s) {
    StrategyResult& r = result.strategies.emplace_back();
    PARTKV_RETURN_IF_ERROR(RecordAnalysis(in, s, analyzers[s], &r));
    PARTKV_RETURN_IF_ERROR(PlanStrategy(in, s, &plans[s], &r, &tracker));
    PARTKV_RETURN_IF_ERROR(WriteStrategy(in, s, store, plans[s], &tables, &r, &tracker));
  }
  PARTKV_RETURN_IF_ERROR(CheckLayoutOnDisk(in, store, tables, &result, &tracker));

  PARTKV_ASSIGN_OR_RETURN(
      const std::vector<std::vector<SampledRead>> samples,
      SampleReads(*in.data, in.read_specs, options.workload.seed ^ 0x7265616473ULL));
  PARTKV_RETURN_IF_ERROR(ReadOnDisk(in, tables, samples, &result, &tracker));
  PARTKV_RETURN_IF_ERROR(ReplayBusiestDay(in, plans, &result, &tracker));
  if (!options.target.location.empty()) {
    PARTKV_RETURN_IF_ERROR(RunAgainstTarget(in, plans, samples, &result, &tracker));
  }
  tracker.Step("done", 0);
  result.phase_seconds = tracker.phases();

  result.wall_seconds = SecondsSince(wall_start);
  result.facts = MachineFacts();
  return result;
}

}  // namespace partkv::compare
