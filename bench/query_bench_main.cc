// partkv-query-bench: Table::QueryEntities against a raw rocksdb::Iterator, in the same process,
// over the very column families of the store the query reads (same bytes, same block cache).
//
//   Partition scan: page through every entity of ONE PartitionKey (page size 1000, following
//     continuation tokens, entities decoded)          vs  one raw iterator over the same key range
//   Table scan: page through a whole table of many PartitionKeys, merged over 16 physical
//     partitions, no conditions                       vs  the raw iterator rate of the partition scan
//   Both scans also run through one reused Page (QueryEntities(q, &page)), whose entities keep
//     their strings' capacity from page to page
//   Key-bounded query: 100 rows of one PartitionKey (partition_key + RowKey bounds) in a small
//     and in a large table; the claim is the latency ratio large/small (a raw iterator over the
//     same 100 keys is run alongside, for context)
//
// Every fixture lives in its own store (its own block cache), is populated with batches of 100,
// flushed, left to settle its compactions and read once before anything is timed, so reads hit
// SST files through a warm block cache. The raw side touches every key and value (sizes plus the
// first and last value byte), so its work is not optimised away; the partkv side decodes every
// entity into partkv::Entity, as the API must. Every run checks it saw exactly the expected rows.
//
// Rates are items per second of the benchmark thread's CPU time, not wall time: the scans are
// single-threaded and the machines this runs on are shared, so wall time mostly measures the
// neighbours. Each run lasts at least --min_time seconds. The pairs run interleaved for --rounds
// rounds (alternating which side goes first); each ratio is the median of the per-round ratios.
// Extra flags, after Google Benchmark's own:
//   --rounds N  --min_time S  --iterations N  --scan_entities N  --small_entities N  --large_entities N
//   --bounded_partitions N  --ratios_out PATH
//
// This file holds main() and the ratio lines; the fixtures are in query_bench_fixture.h, the
// benchmark bodies in query_bench_benchmarks.h.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <functional>
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
};

int Main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
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
  app.add_option("--ratios_out", g_config.ratios_out, "write the ratios as JSON to this file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  Fixtures fixtures;
  g_fixtures = &fixtures;
  std::fprintf(stderr, "populating: partition scan (%llu)...\n",
               static_cast<unsigned long long>(g_config.scan_entities));
  PopulateSinglePartition(&fixtures.single, g_config.scan_entities);
  std::fprintf(stderr, "populating: table scan (%llu)...\n",
               static_cast<unsigned long long>(g_config.scan_entities));
  PopulateLayout(&fixtures.wide, g_config.scan_entities);
  std::fprintf(stderr, "populating: small table (%llu)...\n",
               static_cast<unsigned long long>(g_config.small_entities));
  BuildBounded(&fixtures.small, g_config.small_entities);
  std::fprintf(stderr, "populating: large table (%llu)...\n",
               static_cast<unsigned long long>(g_config.large_entities));
  BuildBounded(&fixtures.large, g_config.large_entities);
  Warm(fixtures);
  PrintConfiguration(stdout, "partkv-query-bench: partkv queries vs raw RocksDB iterators, "
                             "same process, same bytes",
                     FixtureFacts(fixtures));

  // Pairs registered side by side, alternating which goes first each round.
  const std::vector<std::pair<Registration, Registration>> pairs = {
      // The targets' pair side by side: the paging API and the raw iterator.
      {{"partkv_PartitionScanReused", BM_PartkvPartitionScanReused, benchmark::kMillisecond},
       {"raw_PartitionScan", BM_RawPartitionScan, benchmark::kMillisecond}},
      {{"partkv_TableScanReused", BM_PartkvTableScanReused, benchmark::kMillisecond},
       {"partkv_TableFilter", BM_PartkvTableFilter, benchmark::kMillisecond}},
      {{"partkv_PartitionScan", BM_PartkvPartitionScan, benchmark::kMillisecond},
       {"partkv_TableScan", BM_PartkvTableScan, benchmark::kMillisecond}},
      {{"partkv_BoundedSmall",
        [](benchmark::State& s) { BM_PartkvBounded(s, &g_fixtures->small); },
        benchmark::kMicrosecond},
       {"partkv_BoundedLarge",
        [](benchmark::State& s) { BM_PartkvBounded(s, &g_fixtures->large); },
        benchmark::kMicrosecond}},
      {{"raw_BoundedSmall", [](benchmark::State& s) { BM_RawBounded(s, &g_fixtures->small); },
        benchmark::kMicrosecond},
       {"raw_BoundedLarge", [](benchmark::State& s) { BM_RawBounded(s, &g_fixtures->large); },
        benchmark::kMicrosecond}},
  };
  for (int round = 1; round <= g_config.rounds; ++round) {
    for (const auto& [a, b] : pairs) {
      auto add = [&](const Registration& r) {
        if (!r.fn) return;
        auto* b =
            benchmark::RegisterBenchmark(fmt::format("{}/round:{}", r.name, round).c_str(), r.fn)
                ->Unit(r.unit);
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
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  const std::vector<RatioLine> ratios = {
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
  };
  return FinishRatioReport("partkv-query-bench", ratios, reporter, FixtureFacts(fixtures), g_config.ratios_out);
}

}  // namespace
}  // namespace partkv::bench::query_bench

int main(int argc, char** argv) { return partkv::bench::query_bench::Main(argc, argv); }
