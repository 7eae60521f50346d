// partkv-query-bench: Table::QueryEntities against a raw rocksdb::Iterator, in the same process,
// over the very column families of the store the query reads (same bytes, same block cache).
//
//   Partition scan: page through every entity of ONE PartitionKey (page size 1000, following
//     continuation tokens, entities decoded)          vs  one raw iterator over the same key range
//   Table scan: page through a whole table of many PartitionKeys, merged over 16 physical
//     partitions, no conditions                       vs  the raw iterator rate of the partition
//     scan
//   Both scans also run through one reused Page (QueryEntities(q, &page)), whose entities keep
//     their strings' capacity from page to page
//   Key-bounded query: 100 rows of one PartitionKey (partition_key + RowKey bounds) in a small
//     and in a large table; the claim is the latency ratio large/small (a raw iterator over the
//     same 100 keys is run alongside, for context)
//   Scan threads: a table-wide query with a selective filter (a property comparison, ~0.5% of
//     1,000,000 small entities; scan_budget UINT64_MAX, so pages end at 1000 results) paged to the
//     end on a store opened with scan_threads = 2  vs  the same on a copy opened with 1; rates
//     per wall-clock second, as the claim is what a second thread does for the caller
//   Hot set: Table::Get over a few thousand keys that fit the block cache of a small store (32
//     MiB budget) holding a table several times larger, with one thread paging through
//     full-table scans of the same store beside it  vs  the same reads alone; the claim is on the
//     reader thread's CPU time (per wall-clock second for context). The store is opened with
//     scan_threads = 1, so the two workloads take one core each.
//
// Every fixture lives in its own store (its own block cache), is populated with batches of 100
// (the scan-threads and hot-set tables: a BulkWriter, then copied into the stores measured),
// flushed, left to settle its compactions and read once before anything is timed, so reads hit
// SST files through a warm block cache. The raw side touches every key and value (sizes plus the
// first and last value byte), so its work is not optimised away; the partkv side decodes every
// entity into partkv::Entity, as the API must. Every run checks it saw exactly the expected rows.
//
// Rates are items per second of the benchmark thread's CPU time, not wall time: the scans are
// single-threaded and the machines this runs on are shared, so wall time mostly measures the
// neighbours. The scan-threads pair is the exception: its claim is about wall time. Each run
// lasts at least --min_time seconds. The pairs run interleaved for --rounds rounds (alternating
// which side goes first); each ratio is the median of the per-round ratios. --phases runs (and
// builds the fixtures of) some phases only: scan, bounded, parallel (scan threads), hotset.
// Extra flags, after Google Benchmark's own:
//   --rounds N  --min_time S  --iterations N  --scan_entities N  --small_entities N
//   --large_entities N
//   --bounded_partitions N  --parallel_entities N  --hot_table_entities N  --hot_keys N
//   --hot_memory_budget_mib N  --phases scan,bounded,parallel,hotset  --ratios_out PATH
//
// This file holds main() and the ratio lines; the fixtures are in query_bench_fixture.h, the
// benchmark bodies in query_bench_benchmarks.h.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/bench_common.h"
#include "bench/bench_report.h"
#include "bench/query_bench_benchmarks.h"
#include "bench/query_bench_fixture.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace partkv::bench::query_bench {
namespace {

struct Registration {
  const char* name;
  std::function<void(benchmark::State&)> fn;
  benchmark::TimeUnit unit;
  bool real_time = false;  // UseRealTime(): items per wall-clock second
};

// The hot-set pair runs UseRealTime(); its claim is per second of the reader thread's CPU time.
// Adds "<name>@cpu" to `rates` for each of `names`: the same runs, converted.
void AddCpuRates(RatesByName* rates, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    auto it = rates->find(name);
    if (it == rates->end()) continue;
    std::map<int, RunRate> cpu;
    for (auto [round, r] : it->second) {
      r.items_per_second *= r.real_seconds / r.cpu_seconds;
      cpu.emplace(round, r);
    }
    (*rates)[name + "@cpu"] = std::move(cpu);
  }
}

// The collecting reporter, which also keeps the hot-set runs' counters (BM_HotReads): what the
// ratio alone cannot tell, whether the scan beside evicted the hot set (more blocks read per Get)
// or only competed for the machine.
class QueryBenchReporter : public CollectingReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    CollectingReporter::ReportRuns(runs);
    for (const auto& run : runs) {
      if (run.error_occurred) continue;
      std::string full = run.benchmark_name();
      std::string name = full.substr(0, full.find('/'));
      for (const auto& [counter, value] : run.counters) {
        counters_[name][counter].push_back(value.value);
      }
    }
  }

  // The median over the rounds of `counter` of benchmark `name`, or nullopt when it never ran.
  std::optional<double> MedianCounter(const std::string& name, const std::string& counter) const {
    auto by_name = counters_.find(name);
    if (by_name == counters_.end()) return std::nullopt;
    auto values = by_name->second.find(counter);
    if (values == by_name->second.end()) return std::nullopt;
    return Median(values->second);
  }

 private:
  std::map<std::string, std::map<std::string, std::vector<double>>> counters_;
};

// Prints, after the ratio table, the hot-set runs' blocks read per Get and the scan's rate, and
// adds them to the --ratios_out document.
void ReportHotSetCounters(const QueryBenchReporter& reporter, nlohmann::json* report) {
  auto alone = reporter.MedianCounter("partkv_HotReadsAlone", "block_reads");
  auto beside = reporter.MedianCounter("partkv_HotReadsBesideScan", "block_reads");
  auto scan = reporter.MedianCounter("partkv_HotReadsBesideScan", "scan_rows");
  if (!alone || !beside || !scan) return;
  std::printf(
      "\nhot reads, blocks read from SST files per Get (median of rounds): %.4f beside the scan, "
      "%.4f alone; the scan beside read %.0f rows/s (wall clock)\n",
      *beside, *alone, *scan);
  (*report)["hot_set"] = {{"block_reads_per_get_beside_scan", *beside},
                          {"block_reads_per_get_alone", *alone},
                          {"scan_rows_per_second_beside", *scan}};
}

// Parses the command line into g_config. The exit status when the program ends here (help, or
// a bad flag); nullopt to go on.
std::optional<int> ParseFlags(int argc, char** argv) {
  CLI::App app{"partkv-query-bench: partkv queries against raw RocksDB iterators"};
  app.add_option("--rounds", g_config.rounds, "interleaved rounds of every pair")
      ->check(CLI::Range(1, 99));
  app.add_option("--scan_entities", g_config.scan_entities, "entities of each scan fixture")
      ->check(CLI::Range(uint64_t{1000}, uint64_t{100'000'000}));
  app.add_option("--small_entities", g_config.small_entities, "entities of the small table")
      ->check(CLI::Range(uint64_t{1000}, uint64_t{100'000'000}));
  app.add_option("--large_entities", g_config.large_entities, "entities of the large table")
      ->check(CLI::Range(uint64_t{1000}, uint64_t{100'000'000}));
  app.add_option("--min_time", g_config.min_time, "minimum seconds per run")
      ->check(CLI::Range(0.01, 600.0));
  app.add_option("--iterations", g_config.iterations,
                 "exact iterations per run instead of --min_time (for instruction counts)")
      ->check(CLI::Range(int64_t{1}, int64_t{1'000'000}));
  app.add_option("--bounded_partitions", g_config.bounded_partitions,
                 "distinct PartitionKeys the key-bounded queries cycle over")
      ->check(CLI::PositiveNumber);
  app.add_option("--parallel_entities", g_config.parallel_entities,
                 "entities of the scan-threads table")
      ->check(CLI::Range(uint64_t{1000}, uint64_t{100'000'000}));
  app.add_option("--hot_table_entities", g_config.hot_table_entities,
                 "entities (about 1 KiB each) of the hot-set table")
      ->check(CLI::Range(uint64_t{1000}, uint64_t{100'000'000}));
  app.add_option("--hot_keys", g_config.hot_keys, "keys of the hot set")
      ->check(CLI::Range(uint64_t{1}, uint64_t{10'000'000}));
  app.add_option("--hot_memory_budget_mib", g_config.hot_memory_budget_mib,
                 "memory budget (block cache) of the hot-set store, MiB")
      ->check(CLI::Range(size_t{4}, size_t{65536}));
  app.add_option("--phases", g_config.phases, "the phases to run (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember({kPhaseScan, kPhaseBounded, kPhaseParallel, kPhaseHotSet}));
  app.add_option("--ratios_out", g_config.ratios_out, "write the ratios as JSON to this file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  if (g_config.hot_keys > g_config.hot_table_entities) {
    std::fprintf(stderr,
                 "partkv-query-bench: error: --hot_keys %llu exceeds --hot_table_entities %llu\n",
                 static_cast<unsigned long long>(g_config.hot_keys),
                 static_cast<unsigned long long>(g_config.hot_table_entities));
    return 1;
  }
  return std::nullopt;
}

// Builds the fixtures of the phases that run.
void BuildFixtures(Fixtures* fixtures) {
  // Announces a fixture on stderr before it is built (the large ones take seconds).
  auto populating = [](const char* what, uint64_t n) {
    std::fprintf(stderr, "populating: %s (%llu)...\n", what, static_cast<unsigned long long>(n));
  };
  if (g_config.Runs(kPhaseScan)) {
    populating("partition scan", g_config.scan_entities);
    PopulateSinglePartition(&fixtures->single, g_config.scan_entities);
    populating("table scan", g_config.scan_entities);
    PopulateLayout(&fixtures->wide, g_config.scan_entities);
  }
  if (g_config.Runs(kPhaseBounded)) {
    populating("small table", g_config.small_entities);
    BuildBounded(&fixtures->small, g_config.small_entities);
    populating("large table", g_config.large_entities);
    BuildBounded(&fixtures->large, g_config.large_entities);
  }
  if (g_config.Runs(kPhaseParallel)) {
    populating("scan-threads table", g_config.parallel_entities);
    BuildParallel(&fixtures->parallel.emplace(), g_config.parallel_entities);
    std::fprintf(stderr, "  built and copied in %.1f s\n", fixtures->parallel->build_seconds);
  }
  if (g_config.Runs(kPhaseHotSet)) {
    populating("hot-set table", g_config.hot_table_entities);
    BuildHotSet(&fixtures->hot.emplace(), g_config.hot_table_entities);
    std::fprintf(stderr, "  built and copied in %.1f s\n", fixtures->hot->build_seconds);
  }
}

// The pairs of the phases that run, each registered side by side.
std::vector<std::pair<Registration, Registration>> PairsToRun() {
  std::vector<std::pair<Registration, Registration>> pairs;
  const std::vector<std::pair<Registration, Registration>> scan_pairs = {
      // The targets' pair side by side: the paging API and the raw iterator.
      {{"partkv_PartitionScanReused", BM_PartkvPartitionScanReused, benchmark::kMillisecond},
       {"raw_PartitionScan", BM_RawPartitionScan, benchmark::kMillisecond}},
      {{"partkv_TableScanReused", BM_PartkvTableScanReused, benchmark::kMillisecond},
       {"partkv_TableFilter", BM_PartkvTableFilter, benchmark::kMillisecond}},
      {{"partkv_PartitionScan", BM_PartkvPartitionScan, benchmark::kMillisecond},
       {"partkv_TableScan", BM_PartkvTableScan, benchmark::kMillisecond}},
  };
  const std::vector<std::pair<Registration, Registration>> bounded_pairs = {
      {{"partkv_BoundedSmall", [](benchmark::State& s) { BM_PartkvBounded(s, &g_fixtures->small); },
        benchmark::kMicrosecond},
       {"partkv_BoundedLarge", [](benchmark::State& s) { BM_PartkvBounded(s, &g_fixtures->large); },
        benchmark::kMicrosecond}},
      {{"raw_BoundedSmall", [](benchmark::State& s) { BM_RawBounded(s, &g_fixtures->small); },
        benchmark::kMicrosecond},
       {"raw_BoundedLarge", [](benchmark::State& s) { BM_RawBounded(s, &g_fixtures->large); },
        benchmark::kMicrosecond}},
  };
  const std::vector<std::pair<Registration, Registration>> parallel_pairs = {
      {{"partkv_FilterScanThreads2",
        [](benchmark::State& s) { BM_ParallelFilter(s, &*g_fixtures->parallel->two_threads); },
        benchmark::kMillisecond, true},
       {"partkv_FilterScanThreads1",
        [](benchmark::State& s) { BM_ParallelFilter(s, &*g_fixtures->parallel->one_thread); },
        benchmark::kMillisecond, true}},
  };
  const std::vector<std::pair<Registration, Registration>> hot_set_pairs = {
      {{"partkv_HotReadsBesideScan", [](benchmark::State& s) { BM_HotReads(s, true); },
        benchmark::kMicrosecond, true},
       {"partkv_HotReadsAlone", [](benchmark::State& s) { BM_HotReads(s, false); },
        benchmark::kMicrosecond, true}},
  };
  for (const auto& [phase, phase_pairs] :
       {std::pair{kPhaseScan, &scan_pairs}, std::pair{kPhaseBounded, &bounded_pairs},
        std::pair{kPhaseParallel, &parallel_pairs}, std::pair{kPhaseHotSet, &hot_set_pairs}}) {
    if (g_config.Runs(phase)) pairs.insert(pairs.end(), phase_pairs->begin(), phase_pairs->end());
  }
  return pairs;
}

// Registers every pair once per round, alternating which goes first each round.
void RegisterRounds(const std::vector<std::pair<Registration, Registration>>& pairs) {
  for (int round = 1; round <= g_config.rounds; ++round) {
    for (const auto& [a, b] : pairs) {
      auto add = [&](const Registration& r) {
        if (!r.fn) return;
        auto* b =
            benchmark::RegisterBenchmark(fmt::format("{}/round:{}", r.name, round).c_str(), r.fn)
                ->Unit(r.unit);
        if (r.real_time) b->UseRealTime();
        if (g_config.iterations > 0) {
          b->Iterations(g_config.iterations);
        } else {
          b->MinTime(g_config.min_time);
        }
      };
      if (round % 2 == 1) {
        add(a);
        add(b);
      } else {
        add(b);
        add(a);
      }
    }
  }
}

// The ratio table's lines: the pairs' ratios, and the targets of some.
std::vector<RatioLine> RatioLines() {
  // A table of ratio lines.
  // clang-format off
  return {
      // Paging through a reused Page (Table::QueryEntities(query, &page)), the paging API: the
      // targets. A new Page per call allocates every entity's strings again: shown for scale.
      {"partition scan / raw iterator", "partkv_PartitionScanReused", "raw_PartitionScan", false,
       0.5, false},
      {"table scan (16) / raw iterator", "partkv_TableScanReused", "raw_PartitionScan", false,
       0.35, false},
      {"  new Page per call: partition / raw", "partkv_PartitionScan", "raw_PartitionScan", false,
       {}, false},
      {"  new Page per call: table (16) / raw", "partkv_TableScan", "raw_PartitionScan", false, {},
       false},
      {"  selective filter, table (16) / raw", "partkv_TableFilter", "raw_PartitionScan", false,
       {}, false},
      // Latency large / latency small = rate small / rate large.
      {"bounded 100 rows: large / small", "partkv_BoundedSmall", "partkv_BoundedLarge", true, 2.0,
       true},
      {"  raw iterator: large / small", "raw_BoundedSmall", "raw_BoundedLarge", true, {}, true},
      {"  small: partkv / raw (rate)", "partkv_BoundedSmall", "raw_BoundedSmall", true, {}, false},
      {"  large: partkv / raw (rate)", "partkv_BoundedLarge", "raw_BoundedLarge", true, {}, false},
      // Wall-clock rates: what a second scan thread does for the caller's wait.
      {"table filter (wall): 2 / 1 scan threads", "partkv_FilterScanThreads2",
       "partkv_FilterScanThreads1", false, 1.6, false},
      // Reads per second of the reader thread's CPU time; then per wall-clock second.
      {"hot reads (CPU): scan beside / alone", "partkv_HotReadsBesideScan@cpu",
       "partkv_HotReadsAlone@cpu", true, 0.90, false},
      {"  hot reads (wall): beside / alone", "partkv_HotReadsBesideScan", "partkv_HotReadsAlone",
       true, {}, false},
  };
  // clang-format on
}

int Main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (std::optional<int> exit = ParseFlags(argc, argv)) return *exit;

  Fixtures fixtures;
  g_fixtures = &fixtures;
  BuildFixtures(&fixtures);
  Warm(fixtures);
  PrintConfiguration(stdout,
                     "partkv-query-bench: partkv queries vs raw RocksDB iterators, "
                     "same process, same bytes",
                     FixtureFacts(fixtures));

  RegisterRounds(PairsToRun());
  QueryBenchReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  const std::vector<RatioLine> ratios = RatioLines();
  RatesByName rates = reporter.rates();
  AddCpuRates(&rates, {"partkv_HotReadsBesideScan", "partkv_HotReadsAlone"});
  const auto facts = FixtureFacts(fixtures);
  nlohmann::json report = ReportJson(facts);
  RatioReport table = PrintRatioTable(ratios, rates);
  report["ratios"] = std::move(table.ratios);
  report["all_targets_met"] = table.all_targets_met;
  ReportHotSetCounters(reporter, &report);
  return FinishReport("partkv-query-bench", reporter, report, g_config.ratios_out);
}

}  // namespace
}  // namespace partkv::bench::query_bench

int main(int argc, char** argv) { return partkv::bench::query_bench::Main(argc, argv); }
