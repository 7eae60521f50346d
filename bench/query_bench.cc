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

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/bench_common.h"
#include "engine/key_codec.h"
#include "engine/store_state.h"
#include "engine/table_state.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "partkv/store.h"
#include "rocksdb/db.h"

namespace partkv::bench {
namespace {

constexpr uint32_t kPartitions = 16;
constexpr char kTableName[] = "Bench";
// The one PartitionKey of the partition-scan fixture.
constexpr char kSinglePartitionKey[] = "device-00000";

struct Config {
  int rounds = 3;
  double min_time = 1.0;
  // When set, every run makes exactly this many iterations instead of running for min_time:
  // for instruction counts (valgrind --tool=callgrind), which need a fixed amount of work.
  int64_t iterations = 0;
  uint64_t scan_entities = 100000;
  uint64_t small_entities = 10000;
  uint64_t large_entities = 1000000;
  uint64_t bounded_partitions = 100;
  std::string ratios_out;
};
Config g_config;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "partkv-query-bench: error: %s\n", what.c_str());
  std::exit(1);
}

// --- Fixtures --------------------------------------------------------------------------------

// One store with one table of kPartitions physical partitions.
struct BenchStore {
  TempDir dir{"partkv-query-bench"};
  std::optional<Store> store;
  std::optional<Table> table;
  uint64_t entities = 0;

  BenchStore() {
    auto s = Store::Open(dir.Sub("store"));
    if (!s.ok()) Die("open store: " + s.status().ToString());
    store.emplace(std::move(*s));
    TableOptions options;
    options.physical_partitions = kPartitions;
    Status cs = store->CreateTable(kTableName, options);
    if (!cs.ok()) Die("create table: " + cs.ToString());
    auto t = store->OpenTable(kTableName);
    if (!t.ok()) Die("open table: " + t.status().ToString());
    table.emplace(std::move(*t));
  }
  rocksdb::DB* db() const { return store->state().db(); }
  engine::TableData& data() const { return table->state().data(); }
  rocksdb::ColumnFamilyHandle* CfOf(std::string_view pk) const {
    return data().partitions()[data().PartitionIndexOf(pk)].cf;
  }
};

uint64_t SumProperty(const BenchStore& s, const std::string& name) {
  uint64_t total = 0;
  for (const auto& p : s.data().partitions()) {
    uint64_t v = 0;
    if (s.db()->GetIntProperty(p.cf, name, &v)) total += v;
  }
  return total;
}

// Waits (up to a minute) until no flush or compaction is pending or running.
void WaitForQuiet(const BenchStore& s) {
  for (int i = 0; i < 600; ++i) {
    uint64_t busy = SumProperty(s, rocksdb::DB::Properties::kCompactionPending) +
                    SumProperty(s, rocksdb::DB::Properties::kMemTableFlushPending);
    uint64_t running = 0;
    s.db()->GetIntProperty(rocksdb::DB::Properties::kNumRunningCompactions, &running);
    busy += running;
    s.db()->GetIntProperty(rocksdb::DB::Properties::kNumRunningFlushes, &running);
    busy += running;
    if (busy == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// "L0 a, L1 b, ..." summed over the table's physical partitions (non-empty levels only).
std::string LsmShape(const BenchStore& s) {
  std::string out;
  for (int level = 0; level < 7; ++level) {
    uint64_t files = 0;
    for (const auto& p : s.data().partitions()) {
      std::string v;
      if (s.db()->GetProperty(
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

void Submit(BenchStore* s, const Batch& batch) {
  auto r = s->table->Submit(batch);
  if (!r.ok()) Die("populate: " + r.status().ToString());
  s->entities += batch.ops().size();
}

void Settle(BenchStore* s) {
  Status fs = s->store->Flush();
  if (!fs.ok()) Die("flush: " + fs.ToString());
  WaitForQuiet(*s);
}

// `n` entities under the one PartitionKey kSinglePartitionKey, in RowKey order.
void PopulateSinglePartition(BenchStore* s, uint64_t n) {
  for (uint64_t b = 0; b < n / kEntitiesPerPartitionKey; ++b) {
    Batch batch;
    for (uint64_t j = 0; j < kEntitiesPerPartitionKey; ++j) {
      Entity e = MakeEntity(b * kEntitiesPerPartitionKey + j);
      e.set_partition_key(kSinglePartitionKey);
      batch.Insert(std::move(e));
    }
    Submit(s, batch);
  }
  Settle(s);
}

// `n` entities of the common layout (n / 100 PartitionKeys), batches in a scrambled order.
void PopulateLayout(BenchStore* s, uint64_t n) {
  Permutation order(n / kEntitiesPerPartitionKey);
  for (uint64_t i = 0; i < order.size(); ++i) Submit(s, MakeInsertBatch(order[i]));
  Settle(s);
}

// A table for key-bounded queries, with the PartitionKeys the queries target: spread over the
// whole key space, the same number in every table, so both tables' working sets fit the cache
// and only the table's size differs.
struct BoundedFixture {
  BenchStore s;
  std::vector<uint64_t> targets;  // PartitionKey indexes
  struct RawRange {
    std::string lower, upper;
    rocksdb::ColumnFamilyHandle* cf;
  };
  std::vector<RawRange> raw;
  std::vector<Query> queries;
};

void BuildBounded(BoundedFixture* f, uint64_t n) {
  PopulateLayout(&f->s, n);
  uint64_t pks = n / kEntitiesPerPartitionKey;
  Permutation order(pks);
  for (uint64_t i = 0; i < std::min(g_config.bounded_partitions, pks); ++i) {
    f->targets.push_back(order[i]);
  }
  for (uint64_t t : f->targets) {
    std::string pk = PartitionKeyOf(t);
    std::string first = RowKeyOf(t * kEntitiesPerPartitionKey);
    std::string last = RowKeyOf(t * kEntitiesPerPartitionKey + kEntitiesPerPartitionKey - 1);
    Query q;
    q.partition_key = pk;
    q.row_lower = Bound::Inclusive(first);
    q.row_upper = Bound::Inclusive(last);
    f->queries.push_back(std::move(q));
    // The encoded range partkv derives from those conditions: [pk\0first, pk\0last\0).
    std::string upper = engine::EntityKey(pk, last);
    upper.push_back('\0');
    f->raw.push_back({engine::EntityKey(pk, first), std::move(upper), f->s.CfOf(pk)});
  }
}

struct Fixtures {
  BenchStore single;  // scan_entities entities of one PartitionKey
  BenchStore wide;    // scan_entities entities of scan_entities / 100 PartitionKeys
  BoundedFixture small, large;
};
Fixtures* g_fixtures = nullptr;

// --- The measured operations -----------------------------------------------------------------

// Pages through `q` to the end; returns the entities seen (or an error).
Result<uint64_t> PageThrough(const Table& table, Query q, uint64_t* touched) {
  uint64_t rows = 0;
  for (;;) {
    PARTKV_ASSIGN_OR_RETURN(Page page, table.QueryEntities(q));
    rows += page.entities.size();
    for (const Entity& e : page.entities) *touched += e.property_count() + e.row_key().size();
    if (!page.has_more()) return rows;
    q.continuation = std::move(page.continuation);
  }
}

// The same through one reused Page (Table::QueryEntities(query, &page)): its entities keep their
// strings' capacity from page to page, so the steady state decodes without allocating.
Result<uint64_t> PageThroughReused(const Table& table, Query q, Page* page, uint64_t* touched) {
  uint64_t rows = 0;
  for (;;) {
    PARTKV_RETURN_IF_ERROR(table.QueryEntities(q, page));
    rows += page->entities.size();
    for (const Entity& e : page->entities) *touched += e.property_count() + e.row_key().size();
    if (!page->has_more()) return rows;
    q.continuation.swap(page->continuation);
  }
}

// One raw iterator over [lower, upper) of `cf`; returns the entries seen.
uint64_t RawScan(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const std::string& lower,
                 const std::string& upper, uint64_t* touched, rocksdb::Status* status) {
  rocksdb::Slice lower_slice(lower), upper_slice(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &lower_slice;
  ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, cf));
  uint64_t rows = 0;
  for (it->Seek(lower_slice); it->Valid(); it->Next()) {
    rocksdb::Slice k = it->key(), v = it->value();
    *touched += k.size() + v.size() + static_cast<uint8_t>(k[k.size() - 1]) +
                static_cast<uint8_t>(v[0]) + static_cast<uint8_t>(v[v.size() - 1]);
    ++rows;
  }
  *status = it->status();
  return rows;
}

template <typename Fn>
void Check(benchmark::State& state, uint64_t got, uint64_t want, Fn&& what) {
  if (got != want) {
    state.SkipWithError(fmt::format("{}: saw {} rows, expected {}", what(), got, want).c_str());
  }
}

void BM_PartkvPartitionScan(benchmark::State& state) {
  const BenchStore& s = g_fixtures->single;
  Query q;
  q.partition_key = kSinglePartitionKey;
  q.page_size = 1000;
  uint64_t touched = 0, rows = 0;
  for (auto _ : state) {
    auto r = PageThrough(*s.table, q, &touched);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    Check(state, *r, s.entities, [] { return "partition scan"; });
    rows += *r;
  }
  benchmark::DoNotOptimize(touched);
  state.SetItemsProcessed(static_cast<int64_t>(rows));
}

// A scan through one reused Page, kept across the benchmark's iterations.
void ReusedScan(benchmark::State& state, const BenchStore& s, const Query& q, const char* what) {
  Page page;
  uint64_t touched = 0, rows = 0;
  for (auto _ : state) {
    auto r = PageThroughReused(*s.table, q, &page, &touched);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    Check(state, *r, s.entities, [what] { return what; });
    rows += *r;
  }
  benchmark::DoNotOptimize(touched);
  state.SetItemsProcessed(static_cast<int64_t>(rows));
}

void BM_PartkvPartitionScanReused(benchmark::State& state) {
  Query q;
  q.partition_key = kSinglePartitionKey;
  q.page_size = 1000;
  ReusedScan(state, g_fixtures->single, q, "partition scan (reused page)");
}

void BM_PartkvTableScanReused(benchmark::State& state) {
  Query q;
  q.page_size = 1000;
  ReusedScan(state, g_fixtures->wide, q, "table scan (reused page)");
}

void BM_RawPartitionScan(benchmark::State& state) {
  const BenchStore& s = g_fixtures->single;
  std::string lower, upper = engine::PartitionEnd(kSinglePartitionKey);
  engine::AppendPartitionPrefix(kSinglePartitionKey, &lower);
  rocksdb::ColumnFamilyHandle* cf = s.CfOf(kSinglePartitionKey);
  uint64_t touched = 0, rows = 0;
  for (auto _ : state) {
    rocksdb::Status st;
    uint64_t n = RawScan(s.db(), cf, lower, upper, &touched, &st);
    if (!st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      break;
    }
    Check(state, n, s.entities, [] { return "raw scan"; });
    rows += n;
  }
  benchmark::DoNotOptimize(touched);
  state.SetItemsProcessed(static_cast<int64_t>(rows));
}

void BM_PartkvTableScan(benchmark::State& state) {
  const BenchStore& s = g_fixtures->wide;
  Query q;
  q.page_size = 1000;
  uint64_t touched = 0, rows = 0;
  for (auto _ : state) {
    auto r = PageThrough(*s.table, q, &touched);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    Check(state, *r, s.entities, [] { return "table scan"; });
    rows += *r;
  }
  benchmark::DoNotOptimize(touched);
  state.SetItemsProcessed(static_cast<int64_t>(rows));
}

// Items are queries, so items/s is the inverse of the mean latency.
void BM_PartkvBounded(benchmark::State& state, const BoundedFixture* f) {
  uint64_t touched = 0, done = 0;
  for (auto _ : state) {
    auto r = f->s.table->QueryEntities(f->queries[done % f->queries.size()]);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    if (r->entities.size() != kEntitiesPerPartitionKey || r->has_more()) {
      state.SkipWithError(fmt::format("bounded query returned {} rows{}", r->entities.size(),
                                      r->has_more() ? " and a token" : "")
                              .c_str());
      break;
    }
    for (const Entity& e : r->entities) touched += e.property_count();
    ++done;
  }
  benchmark::DoNotOptimize(touched);
  state.SetItemsProcessed(static_cast<int64_t>(done));
}

void BM_RawBounded(benchmark::State& state, const BoundedFixture* f) {
  uint64_t touched = 0, done = 0;
  for (auto _ : state) {
    const auto& range = f->raw[done % f->raw.size()];
    rocksdb::Status st;
    uint64_t n = RawScan(f->s.db(), range.cf, range.lower, range.upper, &touched, &st);
    if (!st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      break;
    }
    if (n != kEntitiesPerPartitionKey) {
      state.SkipWithError(fmt::format("raw bounded scan saw {} rows", n).c_str());
      break;
    }
    ++done;
  }
  benchmark::DoNotOptimize(touched);
  state.SetItemsProcessed(static_cast<int64_t>(done));
}

// --- Set-up ----------------------------------------------------------------------------------

// Reads every fixture once, untimed, so no measured run pays the first block loads.
void Warm(const Fixtures& f) {
  uint64_t touched = 0;
  Query single;
  single.partition_key = kSinglePartitionKey;
  if (auto r = PageThrough(*f.single.table, single, &touched); !r.ok()) {
    Die("warm-up: " + r.status().ToString());
  }
  if (auto r = PageThrough(*f.wide.table, Query{}, &touched); !r.ok()) {
    Die("warm-up: " + r.status().ToString());
  }
  for (const BoundedFixture* b : {&f.small, &f.large}) {
    for (const Query& q : b->queries) {
      if (auto r = b->s.table->QueryEntities(q); !r.ok()) Die("warm-up: " + r.status().ToString());
    }
  }
  benchmark::DoNotOptimize(touched);
}

std::vector<std::pair<std::string, std::string>> FixtureFacts(const Fixtures& f) {
  return {
      {"physical partitions", fmt::format("{} per table; each fixture in its own store with the "
                                          "default memory budget (64 MiB)",
                                          kPartitions)},
      {"partition scan", fmt::format("{} entities of one PartitionKey ({}), page size 1000, "
                                     "tokens followed, entities decoded; {}",
                                     f.single.entities, kSinglePartitionKey, LsmShape(f.single))},
      {"table scan", fmt::format("{} entities over {} PartitionKeys, no conditions, merged over "
                                 "{} physical partitions; {}",
                                 f.wide.entities, f.wide.entities / kEntitiesPerPartitionKey,
                                 kPartitions, LsmShape(f.wide))},
      {"raw baseline", "one rocksdb::Iterator with bounds on the store's own column family, "
                       "touching key and value bytes; the table scan is compared with the raw "
                       "rate of the partition scan"},
      {"timing", fmt::format("rates from the benchmark thread's CPU time; each run >= {} s",
                             g_config.min_time)},
      {"bounded query", fmt::format("100 rows of one PartitionKey (partition_key + RowKey bounds), "
                                    "cycling over {} PartitionKeys spread over the table",
                                    f.small.targets.size())},
      {"small table", fmt::format("{} entities; {}", f.small.s.entities, LsmShape(f.small.s))},
      {"large table", fmt::format("{} entities; {}", f.large.s.entities, LsmShape(f.large.s))},
      {"population", "batches of 100 (scrambled order except the single partition), flushed, "
                     "compactions settled, every fixture read once before timing"},
      {"rounds", fmt::format("{} (pairs interleaved; ratio = median of per-round ratios)",
                             g_config.rounds)},
  };
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

// One line of the ratio table: ratio = rate(numerator) / rate(denominator), per round.
// For latencies (items are queries) the table shows microseconds per query instead of items/s.
struct Ratio {
  const char* label;
  const char* numerator;
  const char* denominator;
  bool latency;
  std::optional<double> target;  // none: for context only
  bool at_most;                   // the target is an upper bound (else a lower bound)
};

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
      {{"partkv_PartitionScan", BM_PartkvPartitionScan, benchmark::kMillisecond},
       {"raw_PartitionScan", BM_RawPartitionScan, benchmark::kMillisecond}},
      {{"partkv_TableScan", BM_PartkvTableScan, benchmark::kMillisecond},
       {"raw_PartitionScan", nullptr, benchmark::kMillisecond}},  // measured above
      {{"partkv_PartitionScanReused", BM_PartkvPartitionScanReused, benchmark::kMillisecond},
       {"partkv_TableScanReused", BM_PartkvTableScanReused, benchmark::kMillisecond}},
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

  const std::vector<Ratio> ratios = {
      {"partition scan / raw iterator", "partkv_PartitionScan", "raw_PartitionScan", false, 0.5,
       false},
      {"table scan (16) / raw iterator", "partkv_TableScan", "raw_PartitionScan", false, 0.35,
       false},
      {"  reused page: partition / raw", "partkv_PartitionScanReused", "raw_PartitionScan", false,
       0.5, false},
      {"  reused page: table (16) / raw", "partkv_TableScanReused", "raw_PartitionScan", false,
       0.35, false},
      // Latency large / latency small = rate small / rate large.
      {"bounded 100 rows: large / small", "partkv_BoundedSmall", "partkv_BoundedLarge", true, 2.0,
       true},
      {"  raw iterator: large / small", "raw_BoundedSmall", "raw_BoundedLarge", true, {}, true},
      {"  small: partkv / raw (rate)", "partkv_BoundedSmall", "raw_BoundedSmall", true, {}, false},
      {"  large: partkv / raw (rate)", "partkv_BoundedLarge", "raw_BoundedLarge", true, {}, false},
  };

  nlohmann::json out;
  out["configuration"] = nlohmann::json::object();
  for (const auto& [k, v] : ConfigurationFacts()) out["configuration"][k] = v;
  for (const auto& [k, v] : FixtureFacts(fixtures)) out["configuration"][k] = v;
  out["ratios"] = nlohmann::json::array();

  std::printf("\n%-34s %16s %16s %8s %9s  %s\n", "ratio (median of rounds)", "numerator",
              "denominator", "ratio", "target", "");
  auto show = [](double rate, bool latency) {
    return latency ? fmt::format("{:.1f} us/query", rate > 0 ? 1e6 / rate : 0.0)
                   : fmt::format("{:.0f} rows/s", rate);
  };
  bool all_met = true;
  for (const Ratio& r : ratios) {
    auto num = reporter.rates().find(r.numerator);
    auto den = reporter.rates().find(r.denominator);
    if (num == reporter.rates().end() || den == reporter.rates().end()) {
      std::printf("%-34s %16s\n", r.label, "not run");
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
    std::string target = "-", verdict;
    bool met = true;
    if (r.target) {
      met = r.at_most ? ratio <= *r.target : ratio >= *r.target;
      all_met = all_met && met;
      target = fmt::format("{}{:.2f}x", r.at_most ? "<=" : ">=", *r.target);
      verdict = met ? "met" : "MISSED";
    }
    // For latency lines the numerator shown is the first-named side's latency.
    bool swap = r.latency && r.at_most;
    std::string a = show(Median(swap ? den_rates : num_rates), r.latency);
    std::string b = show(Median(swap ? num_rates : den_rates), r.latency);
    std::printf("%-34s %16s %16s %7.2fx %9s  %s\n", r.label, a.c_str(), b.c_str(), ratio,
                target.c_str(), verdict.c_str());
    nlohmann::json j = {{"ratio_of", r.label},
                        {"numerator", r.numerator},
                        {"denominator", r.denominator},
                        {"numerator_items_per_second", Median(num_rates)},
                        {"denominator_items_per_second", Median(den_rates)},
                        {"per_round_ratios", per_round},
                        {"ratio", ratio}};
    if (r.target) {
      j["target"] = *r.target;
      j["target_is_upper_bound"] = r.at_most;
      j["met"] = met;
    }
    out["ratios"].push_back(std::move(j));
  }
  out["all_targets_met"] = all_met;
  for (const auto& e : reporter.errors()) {
    std::fprintf(stderr, "partkv-query-bench: error: %s\n", e.c_str());
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
