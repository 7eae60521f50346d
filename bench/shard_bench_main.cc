// partkv-shard-bench: a sharded (scatter-gather) read against reading the same entities from one
// partition, in the same process, from the same store (issue #4's acceptance: a sharded read of
// 10,000 entities spread over 200 suffixes reaches >= 0.4x the rate of the one-partition read).
//
//   one partition: Table::QueryEntities(partition_key = 2018-08-09), page size 1000, tokens
//     followed, in a table that holds the day's entities under that one PartitionKey
//   sharded N:     Table::QueryShards(random-suffix(date,N), "2018-08-09"), page size 1000,
//     tokens followed, in a table that holds the same entities under 2018-08-09.1 ... .N
//     (one table per N: 200, the target, and 50 and 20 for context)
//
// Both sides page through one reused Page per read (QueryEntities(q, &page), QueryShards(...,
// &page)).
//
// The entities are the common bench layout (bench_common.h) plus a `date` String property (the
// sharding attribute), with RowKey "ORD-%08d" (an order id) and PartitionKey the day or its
// shard. Each shard suffix comes from KeyStrategy::Compute(entity, random) with `random` drawn
// from a seeded std::mt19937_64, so every run writes the same layout. Every table also holds
// --noise_days other days of as many entities each (and, sharded, their N shards), so the reads
// run through physical partitions that hold other keys, as they would in use.
//
// All tables live in one store (one block cache), each with 16 physical partitions, populated in
// batches of 100 (one PartitionKey per batch), flushed, left to settle their compactions and read
// once before anything is timed. Before timing, one read of each side is checked entity by
// entity: exactly the day's entities, in the same RowKey order, the sharded side under the shard
// its suffix was drawn for, with equal properties. Every run starts with an untimed read of its
// table (the tables share one block cache, and a run of another table may have evicted this
// one's blocks); every timed read checks its row count and last RowKey.
//
// Rates are entities per second of the benchmark thread's CPU time, not wall time: the reads are
// single-threaded and the machines this runs on are shared. Each run lasts at least --min_time
// seconds; the runs are interleaved for --rounds rounds (the order reversed every other round);
// each ratio is the median of the per-round ratios. Extra flags, after Google Benchmark's own:
//   --rounds N  --min_time S  --iterations N  --entities N  --noise_days N  --seed N  --ratios_out
//   PATH
//
// This file holds main(), the configuration lines and the ratio lines; the store and its tables
// are in shard_bench_fixture.h, the reads and their benchmark body in shard_bench_reads.h.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "api/front/front_access.h"
#include "bench/bench_common.h"
#include "bench/bench_report.h"
#include "bench/shard_bench_fixture.h"
#include "bench/shard_bench_reads.h"
#include "engine/local/table_handle.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace partkv::bench::shard_bench {
namespace {

std::vector<std::pair<std::string, std::string>> FixtureFacts(
    const Fixture& f, const std::map<std::string, ReadStats>& reads) {
  std::string days;
  for (const auto& d : Days()) days += (days.empty() ? "" : ", ") + d;
  auto read_facts = [&](const BenchTable& t) {
    const ReadStats& r = reads.at(t.name);
    return fmt::format(
        "{} pages, {} entries examined, {} block cache hits and {} block reads "
        "per read; {}",
        r.pages, r.examined, r.block_cache_hits, r.block_reads, LsmShape(f, t));
  };
  std::vector<std::pair<std::string, std::string>> facts = {
      {"store", fmt::format("one store, default memory budget (64 MiB), {} tables of {} physical "
                            "partitions each",
                            1 + f.sharded.size(), kPartitions)},
      {"data", fmt::format("{} entities per day, days {} (each table holds all of them); RowKey "
                           "ORD-%08d; the bench layout plus a `date` String property",
                           g_config.entities, days)},
      {"read", fmt::format("every entity of {}: page size {}, tokens followed, entities decoded",
                           kDay, kPageSize)},
      {"one partition", fmt::format("table {}: QueryEntities(partition_key = {}); {}",
                                    f.single.name, kDay, read_facts(f.single))},
  };
  for (const BenchTable& t : f.sharded) {
    facts.emplace_back(
        fmt::format("sharded {}", t.shards),
        fmt::format("table {}: QueryShards({}, {}); {} of {} shards used (seed {}); {}", t.name,
                    t.strategy->ToString(), kDay, t.day_partition_keys_used, t.shards,
                    g_config.seed + t.shards, read_facts(t)));
  }
  {
    // The cache is shared by the whole store; memtables are charged to it too.
    uint64_t capacity = 0, usage = 0, pinned = 0;
    auto cf = FrontAccess::Of(*f.single.table).data().partitions()[0].cf;
    f.db()->GetIntProperty(cf, rocksdb::DB::Properties::kBlockCacheCapacity, &capacity);
    f.db()->GetIntProperty(cf, rocksdb::DB::Properties::kBlockCacheUsage, &usage);
    f.db()->GetIntProperty(cf, rocksdb::DB::Properties::kBlockCachePinnedUsage, &pinned);
    facts.emplace_back("block cache",
                       fmt::format("{:.1f} MiB used ({:.1f} MiB pinned) of {:.1f} "
                                   "MiB after the untimed reads",
                                   usage / 1048576.0, pinned / 1048576.0, capacity / 1048576.0));
  }
  facts.emplace_back("population",
                     "batches of 100 (one PartitionKey each), flushed, compactions "
                     "settled, each read checked entity by entity once before timing; "
                     "every run starts with an untimed read of its table");
  facts.emplace_back("timing", fmt::format("rates from the benchmark thread's CPU time; each run "
                                           ">= {} s",
                                           g_config.min_time));
  facts.emplace_back("rounds", fmt::format("{} (runs interleaved, order reversed every other "
                                           "round; ratio = median of per-round ratios)",
                                           g_config.rounds));
  return facts;
}

std::string BenchmarkName(const BenchTable& t) {
  return t.shards == 0 ? "OnePartition" : fmt::format("Sharded{}", t.shards);
}

int Main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  CLI::App app{"partkv-shard-bench: a sharded read against the same entities in one partition"};
  app.add_option("--rounds", g_config.rounds, "interleaved rounds of every run")
      ->check(CLI::Range(1, 99));
  app.add_option("--min_time", g_config.min_time, "minimum seconds per run")
      ->check(CLI::Range(0.01, 600.0));
  app.add_option("--iterations", g_config.iterations,
                 "exact iterations per run instead of --min_time (for instruction counts)")
      ->check(CLI::Range(int64_t{1}, int64_t{1'000'000}));
  app.add_option("--entities", g_config.entities, "entities per day (the read's size)")
      ->check(CLI::Range(uint64_t{1000}, uint64_t{10'000'000}));
  app.add_option("--noise_days", g_config.noise_days, "other days written to every table")
      ->check(CLI::Range(0, 8));
  app.add_option("--seed", g_config.seed, "seed of the shard suffixes");
  app.add_option("--ratios_out", g_config.ratios_out, "write the ratios as JSON to this file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  Fixture fixture;
  BuildFixture(&fixture);
  auto reads = Verify(fixture);  // also warms the block cache
  auto facts = FixtureFacts(fixture, reads);
  PrintConfiguration(stdout,
                     "partkv-shard-bench: sharded read vs one-partition read of the same "
                     "entities, same process, same store",
                     facts);

  std::vector<const BenchTable*> runs = AllTables(fixture);
  for (int round = 1; round <= g_config.rounds; ++round) {
    std::vector<const BenchTable*> order = runs;
    if (round % 2 == 0) std::reverse(order.begin(), order.end());
    for (const BenchTable* t : order) {
      auto* b =
          benchmark::RegisterBenchmark(fmt::format("{}/round:{}", BenchmarkName(*t), round).c_str(),
                                       [t](benchmark::State& s) { BM_ReadDay(s, t); })
              ->Unit(benchmark::kMillisecond);
      if (g_config.iterations > 0) {
        b->Iterations(g_config.iterations);
      } else {
        b->MinTime(g_config.min_time);
      }
    }
  }
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  const std::string baseline = BenchmarkName(fixture.single);
  std::vector<RatioLine> ratios;
  for (const BenchTable& t : fixture.sharded) {
    RatioLine line;
    line.label = fmt::format("sharded {} / one partition", t.shards);
    line.numerator = BenchmarkName(t);
    line.denominator = baseline;
    if (t.shards == kTargetShards) line.target = kTargetRatio;
    ratios.push_back(std::move(line));
  }
  return FinishRatioReport("partkv-shard-bench", ratios, reporter, facts, g_config.ratios_out);
}

}  // namespace
}  // namespace partkv::bench::shard_bench

int main(int argc, char** argv) { return partkv::bench::shard_bench::Main(argc, argv); }
