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
// Both sides page through one reused Page per read (QueryEntities(q, &page), QueryShards(..., &page)).
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
//   --rounds N  --min_time S  --iterations N  --entities N  --noise_days N  --seed N  --ratios_out PATH

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/bench_common.h"
#include "engine/store_state.h"
#include "engine/table_state.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "partkv/keys.h"
#include "partkv/store.h"
#include "rocksdb/db.h"
#include "rocksdb/perf_context.h"
#include "rocksdb/perf_level.h"

namespace partkv::bench {
namespace {

constexpr uint32_t kPartitions = 16;
constexpr uint32_t kPageSize = 1000;
// The day every timed read asks for.
constexpr char kDay[] = "2018-08-09";
// The suffix counts measured; kTargetShards is the one issue #4's target is about.
constexpr uint32_t kShardCounts[] = {200, 50, 20};
constexpr uint32_t kTargetShards = 200;
constexpr double kTargetRatio = 0.4;

struct Config {
  int rounds = 5;
  double min_time = 1.0;
  // When set, every run makes exactly this many iterations instead of running for min_time:
  // for instruction counts (valgrind --tool=callgrind), which need a fixed amount of work.
  int64_t iterations = 0;
  uint64_t entities = 10000;
  int noise_days = 2;
  uint64_t seed = 20180809;
  std::string ratios_out;
};
Config g_config;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "partkv-shard-bench: error: %s\n", what.c_str());
  std::exit(1);
}

// --- Data ------------------------------------------------------------------------------------

// The days written, in date order: kDay and noise_days others around it (after, before, after,
// ...), each with `entities` orders. Order ids are numbered through the days in date order.
std::vector<std::string> Days() {
  std::vector<int> dom = {9};
  for (int i = 1; i <= g_config.noise_days; ++i) {
    dom.push_back(i % 2 == 1 ? 9 + (i + 1) / 2 : 9 - i / 2);
  }
  std::sort(dom.begin(), dom.end());
  std::vector<std::string> days;
  for (int d : dom) days.push_back(fmt::format("2018-08-{:02d}", d));
  return days;
}

std::string OrderId(uint64_t order) { return fmt::format("ORD-{:08d}", order); }

// Order `order` of `day`, under PartitionKey `day` (the sharded tables replace it).
Entity MakeOrder(uint64_t order, const std::string& day) {
  Entity e = MakeEntity(order);
  e.set_partition_key(day);
  e.set_row_key(OrderId(order));
  e.Set("date", Value::String(day));
  return e;
}

// --- Fixture ---------------------------------------------------------------------------------

struct BenchTable {
  std::string name;
  uint32_t shards = 0;  // 0: the one-partition table
  std::optional<KeyStrategy> strategy;
  std::optional<Table> table;
  uint64_t entities = 0;
  // The day's RowKeys in order, and (sharded) the PartitionKey each was written under.
  std::vector<std::string> day_row_keys;
  std::vector<std::string> day_partition_keys;
  uint64_t day_partition_keys_used = 0;  // distinct shards the day's entities landed in
};

struct Fixture {
  TempDir dir{"partkv-shard-bench"};
  std::optional<Store> store;
  BenchTable single;
  std::vector<BenchTable> sharded;  // in kShardCounts order

  rocksdb::DB* db() const { return store->state().db(); }
};

uint64_t SumProperty(const Fixture& f, const std::vector<const BenchTable*>& tables,
                     const std::string& name) {
  uint64_t total = 0;
  for (const BenchTable* t : tables) {
    for (const auto& p : t->table->state().data().partitions()) {
      uint64_t v = 0;
      if (f.db()->GetIntProperty(p.cf, name, &v)) total += v;
    }
  }
  return total;
}

std::vector<const BenchTable*> AllTables(const Fixture& f) {
  std::vector<const BenchTable*> all = {&f.single};
  for (const auto& t : f.sharded) all.push_back(&t);
  return all;
}

// Waits (up to a minute) until no flush or compaction is pending or running.
void WaitForQuiet(const Fixture& f) {
  auto all = AllTables(f);
  for (int i = 0; i < 600; ++i) {
    uint64_t busy = SumProperty(f, all, rocksdb::DB::Properties::kCompactionPending) +
                    SumProperty(f, all, rocksdb::DB::Properties::kMemTableFlushPending);
    uint64_t running = 0;
    f.db()->GetIntProperty(rocksdb::DB::Properties::kNumRunningCompactions, &running);
    busy += running;
    f.db()->GetIntProperty(rocksdb::DB::Properties::kNumRunningFlushes, &running);
    busy += running;
    if (busy == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// "L0 a, L1 b, ..." summed over the table's physical partitions (non-empty levels only).
std::string LsmShape(const Fixture& f, const BenchTable& t) {
  std::string out;
  for (int level = 0; level < 7; ++level) {
    // A string property: GetIntProperty does not serve it.
    uint64_t files = 0;
    for (const auto& p : t.table->state().data().partitions()) {
      std::string v;
      if (f.db()->GetProperty(
              p.cf, rocksdb::DB::Properties::kNumFilesAtLevelPrefix + std::to_string(level), &v)) {
        files += std::strtoull(v.c_str(), nullptr, 10);
      }
    }
    if (files == 0) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("L{} {}", level, files);
  }
  return out.empty() ? "no SST files" : out + " SST files";
}

void OpenTable(Fixture* f, BenchTable* t, const std::string& name, uint32_t shards) {
  t->name = name;
  t->shards = shards;
  if (shards != 0) {
    auto s = KeyStrategy::Parse(fmt::format("random-suffix(date,{})", shards));
    if (!s.ok()) Die("strategy: " + s.status().ToString());
    t->strategy = std::move(*s);
  }
  TableOptions options;
  options.physical_partitions = kPartitions;
  Status cs = f->store->CreateTable(name, options);
  if (!cs.ok()) Die("create table " + name + ": " + cs.ToString());
  auto opened = f->store->OpenTable(name);
  if (!opened.ok()) Die("open table " + name + ": " + opened.status().ToString());
  t->table.emplace(std::move(*opened));
}

// Writes `entities` (all of one PartitionKey) in batches of 100.
void SubmitAll(BenchTable* t, const std::vector<Entity>& entities) {
  for (size_t i = 0; i < entities.size(); i += kEntitiesPerPartitionKey) {
    Batch batch;
    for (size_t j = i; j < std::min(entities.size(), i + kEntitiesPerPartitionKey); ++j) {
      batch.Insert(entities[j]);
    }
    auto r = t->table->Submit(batch);
    if (!r.ok()) Die("populate " + t->name + ": " + r.status().ToString());
    t->entities += batch.ops().size();
  }
}

void Populate(BenchTable* t) {
  std::mt19937_64 random(g_config.seed + t->shards);
  const auto days = Days();
  for (size_t d = 0; d < days.size(); ++d) {
    // PartitionKey -> its entities in RowKey order.
    std::map<std::string, std::vector<Entity>> by_partition;
    for (uint64_t i = 0; i < g_config.entities; ++i) {
      uint64_t order = d * g_config.entities + i;
      Entity e = MakeOrder(order, days[d]);
      if (t->strategy) {
        auto pk = t->strategy->Compute(e, random());
        if (!pk.ok()) Die("compute key: " + pk.status().ToString());
        e.set_partition_key(std::move(*pk));
      }
      if (days[d] == kDay) {
        t->day_row_keys.push_back(e.row_key());
        t->day_partition_keys.push_back(e.partition_key());
      }
      by_partition[e.partition_key()].push_back(std::move(e));
    }
    if (days[d] == kDay) t->day_partition_keys_used = by_partition.size();
    for (const auto& [pk, entities] : by_partition) SubmitAll(t, entities);
  }
}

// --- The measured operations -----------------------------------------------------------------

struct ReadStats {
  uint64_t rows = 0;
  uint64_t pages = 0;
  uint64_t examined = 0;
  std::string last_row_key;
  // From RocksDB's perf context, when it is enabled for the read.
  uint64_t block_reads = 0;  // blocks read from files (block cache misses)
  uint64_t block_cache_hits = 0;
};

// Pages through the day on `t`'s own path to the end, handing each entity to `visit`.
template <typename Visit>
Result<ReadStats> ReadDay(const BenchTable& t, Visit&& visit) {
  Query q;
  q.page_size = kPageSize;
  if (!t.strategy) q.partition_key = kDay;
  ReadStats stats;
  Page page;  // reused from page to page, as a long read would (QueryEntities(q, &page))
  for (;;) {
    PARTKV_RETURN_IF_ERROR(t.strategy ? t.table->QueryShards(*t.strategy, kDay, q, &page)
                                      : t.table->QueryEntities(q, &page));
    ++stats.pages;
    stats.examined += page.examined;
    stats.rows += page.entities.size();
    for (const Entity& e : page.entities) visit(e);
    if (!page.entities.empty()) stats.last_row_key = page.entities.back().row_key();
    if (!page.has_more()) return stats;
    q.continuation.swap(page.continuation);
  }
}

void BM_ReadDay(benchmark::State& state, const BenchTable* t) {
  uint64_t touched = 0, rows = 0;
  // Untimed: the runs of the other tables may have pushed this table's blocks out of the shared
  // cache, and the claim is about warm reads.
  if (auto warm = ReadDay(*t, [](const Entity&) {}); !warm.ok()) {
    state.SkipWithError(warm.status().ToString().c_str());
    return;
  }
  for (auto _ : state) {
    auto r = ReadDay(
        *t, [&touched](const Entity& e) { touched += e.property_count() + e.row_key().size(); });
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    if (r->rows != t->day_row_keys.size() || r->last_row_key != t->day_row_keys.back()) {
      state.SkipWithError(fmt::format("{}: read {} rows ending at '{}'; expected {} ending at '{}'",
                                      t->name, r->rows, r->last_row_key, t->day_row_keys.size(),
                                      t->day_row_keys.back())
                              .c_str());
      break;
    }
    rows += r->rows;
  }
  benchmark::DoNotOptimize(touched);
  state.SetItemsProcessed(static_cast<int64_t>(rows));
}

// --- Set-up ----------------------------------------------------------------------------------

// Reads each table's day once, untimed, and checks it entity by entity against the one-partition
// read: the same RowKeys in the same order, the PartitionKey each was written under, equal
// properties. Returns each table's pages and examined entries per read, for the configuration.
std::map<std::string, ReadStats> Verify(const Fixture& f) {
  std::vector<Entity> reference;
  auto base = ReadDay(f.single, [&reference](const Entity& e) { reference.push_back(e); });
  if (!base.ok()) Die("verify " + f.single.name + ": " + base.status().ToString());
  std::map<std::string, ReadStats> stats = {{f.single.name, *base}};
  if (reference.size() != g_config.entities) {
    Die(fmt::format("verify {}: read {} entities, expected {}", f.single.name, reference.size(),
                    g_config.entities));
  }
  for (size_t i = 0; i < reference.size(); ++i) {
    if (reference[i].row_key() != f.single.day_row_keys[i] ||
        reference[i].partition_key() != kDay) {
      Die(fmt::format("verify {}: entity {} is ({},{}), expected ({},{})", f.single.name, i,
                      reference[i].partition_key(), reference[i].row_key(), kDay,
                      f.single.day_row_keys[i]));
    }
  }
  for (const BenchTable& t : f.sharded) {
    size_t i = 0;
    std::string failure;
    auto r = ReadDay(t, [&](const Entity& e) {
      if (!failure.empty()) return;
      if (i >= reference.size()) {
        failure = fmt::format("more than {} entities", reference.size());
      } else if (e.row_key() != reference[i].row_key() ||
                 e.partition_key() != t.day_partition_keys[i] ||
                 e.properties() != reference[i].properties()) {
        failure = fmt::format(
            "entity {} is {}, expected RowKey {} under {} with the properties "
            "of {}",
            i, e.DebugString(), reference[i].row_key(), t.day_partition_keys[i],
            reference[i].DebugString());
      }
      ++i;
    });
    if (!r.ok()) Die("verify " + t.name + ": " + r.status().ToString());
    if (failure.empty() && i != reference.size()) {
      failure = fmt::format("read {} entities, expected {}", i, reference.size());
    }
    if (!failure.empty()) Die("verify " + t.name + ": " + failure);
    stats[t.name] = *r;
  }
  // Two more reads of each, the second counting block cache hits and misses: the timed reads
  // follow a read of the same table (see BM_ReadDay), and the configuration says whether that
  // leaves them a warm cache.
  for (const BenchTable* t : AllTables(f)) {
    auto warm = ReadDay(*t, [](const Entity&) {});
    if (!warm.ok()) Die("verify " + t->name + ": " + warm.status().ToString());
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
    rocksdb::get_perf_context()->Reset();
    auto r = ReadDay(*t, [](const Entity&) {});
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
    if (!r.ok()) Die("verify " + t->name + ": " + r.status().ToString());
    stats[t->name].block_reads = rocksdb::get_perf_context()->block_read_count;
    stats[t->name].block_cache_hits = rocksdb::get_perf_context()->block_cache_hit_count;
  }
  return stats;
}

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
    auto cf = f.single.table->state().data().partitions()[0].cf;
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

// --- Reporting -------------------------------------------------------------------------------

// Collects each run's items_per_second by benchmark and round, while printing as usual.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& run : runs) {
      std::string full = run.benchmark_name();
      std::string name = full.substr(0, full.find('/'));
      int round = 0;
      if (auto at = full.find("/round:"); at != std::string::npos) {
        round = std::atoi(full.c_str() + at + 7);
      }
      if (run.error_occurred) {
        errors_.push_back(full + ": " + run.error_message);
        continue;
      }
      auto it = run.counters.find("items_per_second");
      if (it != run.counters.end()) rates_[name][round] = it->second.value;
    }
  }
  const std::map<std::string, std::map<int, double>>& rates() const { return rates_; }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::map<std::string, std::map<int, double>> rates_;
  std::vector<std::string> errors_;
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
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
  {
    auto s = Store::Open(fixture.dir.Sub("store"));
    if (!s.ok()) Die("open store: " + s.status().ToString());
    fixture.store.emplace(std::move(*s));
  }
  OpenTable(&fixture, &fixture.single, "OnePartition", 0);
  fixture.sharded.resize(std::size(kShardCounts));
  for (size_t i = 0; i < std::size(kShardCounts); ++i) {
    OpenTable(&fixture, &fixture.sharded[i], fmt::format("Sharded{}", kShardCounts[i]),
              kShardCounts[i]);
  }
  std::vector<BenchTable*> populate = {&fixture.single};
  for (BenchTable& t : fixture.sharded) populate.push_back(&t);
  for (BenchTable* t : populate) {
    std::fprintf(stderr, "populating: %s...\n", t->name.c_str());
    Populate(t);
  }
  if (Status fs = fixture.store->Flush(); !fs.ok()) Die("flush: " + fs.ToString());
  WaitForQuiet(fixture);
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
      auto* b = benchmark::RegisterBenchmark(
                    fmt::format("{}/round:{}", BenchmarkName(*t), round).c_str(),
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

  nlohmann::json out;
  out["configuration"] = nlohmann::json::object();
  for (const auto& [k, v] : ConfigurationFacts()) out["configuration"][k] = v;
  for (const auto& [k, v] : facts) out["configuration"][k] = v;
  out["ratios"] = nlohmann::json::array();

  std::printf("\n%-34s %16s %16s %8s %9s  %s\n", "ratio (median of rounds)", "numerator",
              "denominator", "ratio", "target", "");
  const std::string baseline = BenchmarkName(fixture.single);
  bool all_met = true;
  for (const BenchTable& t : fixture.sharded) {
    std::string name = BenchmarkName(t);
    std::string label = fmt::format("sharded {} / one partition", t.shards);
    auto num = reporter.rates().find(name);
    auto den = reporter.rates().find(baseline);
    if (num == reporter.rates().end() || den == reporter.rates().end()) {
      std::printf("%-34s %16s\n", label.c_str(), "not run");
      continue;
    }
    std::vector<double> num_rates, den_rates, per_round;
    for (const auto& [round, rate] : num->second) {
      num_rates.push_back(rate);
      if (auto d = den->second.find(round); d != den->second.end() && d->second > 0) {
        per_round.push_back(rate / d->second);
      }
    }
    for (const auto& [round, rate] : den->second) den_rates.push_back(rate);
    double ratio = Median(per_round);
    bool targeted = t.shards == kTargetShards;
    bool met = !targeted || ratio >= kTargetRatio;
    all_met = all_met && met;
    std::string target = targeted ? fmt::format(">={:.2f}x", kTargetRatio) : "-";
    std::string verdict = targeted ? (met ? "met" : "MISSED") : "";
    std::string a = fmt::format("{:.0f} rows/s", Median(num_rates));
    std::string b = fmt::format("{:.0f} rows/s", Median(den_rates));
    std::printf("%-34s %16s %16s %7.2fx %9s  %s\n", label.c_str(), a.c_str(), b.c_str(), ratio,
                target.c_str(), verdict.c_str());
    nlohmann::json j = {{"ratio_of", label},
                        {"numerator", name},
                        {"denominator", baseline},
                        {"numerator_items_per_second", Median(num_rates)},
                        {"denominator_items_per_second", Median(den_rates)},
                        {"per_round_ratios", per_round},
                        {"ratio", ratio}};
    if (targeted) {
      j["target"] = kTargetRatio;
      j["target_is_upper_bound"] = false;
      j["met"] = met;
    }
    out["ratios"].push_back(std::move(j));
  }
  out["all_targets_met"] = all_met;
  for (const auto& e : reporter.errors()) {
    std::fprintf(stderr, "partkv-shard-bench: error: %s\n", e.c_str());
  }
  if (!g_config.ratios_out.empty()) {
    std::ofstream f(g_config.ratios_out);
    f << out.dump(2) << "\n";
    if (!f) Die("cannot write " + g_config.ratios_out);
  }
  return reporter.errors().empty() ? 0 : 1;
}

}  // namespace
}  // namespace partkv::bench

int main(int argc, char** argv) { return partkv::bench::Main(argc, argv); }
