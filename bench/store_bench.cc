// partkv-store-bench: the store foundation's operations against their raw RocksDB counterparts,
// run in the same process on the same key and value bytes, reported as ratios partkv/raw.
//
//   Insert (validation, ETag, uniqueness check under the row lock)  vs  DB::Put
//   Submit of a 100-insert Batch (MultiGet + one WriteBatch)        vs  a WriteBatch of the 100
//   Get decoded into an Entity                                     vs  DB::Get into a PinnableSlice
//
// The raw database is configured like a store: its options are taken from an open store
// (engine::StoreState) and only the shared objects — block cache and write-buffer manager — are
// replaced by fresh ones of the same sizes, so a change to the store's options moves the baseline
// with it. Raw writes go to 16 column families, routed exactly as the table routes them, with the
// keys and values partkv itself would write (engine/key_codec.h, engine/value_codec.h). The raw
// Get reads the very column families of the store the partkv Get reads, so both see one LSM shape
// and one warm block cache.
//
// Every write benchmark starts from an empty database and runs a fixed number of operations, so
// both sides do the same work; entities are generated outside the timed region. The pairs run
// interleaved for --rounds rounds (alternating which side goes first); each ratio is the median of
// the per-round ratios. Extra flags, after Google Benchmark's own:
//   --rounds N  --inserts N  --batches N  --read_entities N  --gets N  --ratios_out PATH

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
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
#include "engine/value_codec.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "partkv/store.h"
#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/write_batch.h"
#include "rocksdb/write_buffer_manager.h"

namespace partkv::bench {
namespace {

constexpr uint32_t kPartitions = 16;
constexpr char kTableName[] = "Bench";
// Entities generated per untimed refill: large enough that pausing the timer is noise.
constexpr uint64_t kChunkEntities = 10000;

struct Config {
  int rounds = 5;
  uint64_t inserts = 200000;
  uint64_t batches = 2000;
  uint64_t read_entities = 200000;
  uint64_t gets = 200000;
  std::string ratios_out;
};
Config g_config;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "partkv-store-bench: error: %s\n", what.c_str());
  std::exit(1);
}

// --- The raw baseline ------------------------------------------------------------------------

// The options of a raw database configured like `store`: the store's own DB and partition
// column-family options, with a fresh block cache and write-buffer manager of the same sizes.
struct RawOptions {
  rocksdb::DBOptions db;
  rocksdb::ColumnFamilyOptions partition;
  rocksdb::ColumnFamilyOptions default_cf;
};

RawOptions OptionsLike(const engine::StoreState& store) {
  RawOptions o;
  o.partition = store.PartitionOptions(kPartitions);
  const auto* table = o.partition.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  if (table == nullptr || table->block_cache == nullptr) {
    Die("the store's column families have no block-based table with a block cache");
  }
  rocksdb::BlockBasedTableOptions t = *table;
  t.block_cache = rocksdb::NewLRUCache(table->block_cache->GetCapacity());
  o.partition.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));

  o.db = store.db()->GetDBOptions();
  if (o.db.write_buffer_manager == nullptr) Die("the store has no write-buffer manager");
  o.db.write_buffer_manager = std::make_shared<rocksdb::WriteBufferManager>(
      o.db.write_buffer_manager->buffer_size(), t.block_cache, /*allow_stall=*/true);
  // The sanitized options name the store's directory and own its logger and file manager.
  o.db.db_paths.clear();
  o.db.wal_dir.clear();
  o.db.db_log_dir.clear();
  o.db.info_log.reset();
  o.db.sst_file_manager.reset();
  o.db.create_if_missing = true;
  o.db.error_if_exists = true;

  // The store's default column family is idle and small; so is the raw one.
  o.default_cf.table_factory = o.partition.table_factory;
  o.default_cf.write_buffer_size = 1 << 20;
  o.default_cf.arena_block_size = 64 * 1024;
  return o;
}

// A raw RocksDB database with `partitions` column families configured like a store's.
class RawDb {
 public:
  RawDb(const std::string& path, const RawOptions& options, uint32_t partitions) {
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs{
        {rocksdb::kDefaultColumnFamilyName, options.default_cf}};
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* db = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(options.db, path, cfs, &handles, &db);
    if (!s.ok()) Die("open raw database: " + s.ToString());
    db_.reset(db);
    default_ = handles[0];
    std::vector<std::string> names;
    for (uint32_t i = 0; i < partitions; ++i) names.push_back(fmt::format("p{}", i));
    // One call, as the store does: creating them one by one is quadratic.
    s = db_->CreateColumnFamilies(options.partition, names, &partitions_);
    if (!s.ok()) Die("create raw column families: " + s.ToString());
  }
  ~RawDb() {
    for (auto* h : partitions_) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    db_->DestroyColumnFamilyHandle(default_).PermitUncheckedError();
    db_->Close().PermitUncheckedError();
  }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  rocksdb::DB* db() const { return db_.get(); }
  rocksdb::ColumnFamilyHandle* partition(size_t i) const { return partitions_[i]; }

 private:
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* default_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> partitions_;
};

// --- Shared state ----------------------------------------------------------------------------

// A pre-populated store the Get benchmarks read, and the routing and raw options every benchmark
// derives from it.
struct Fixture {
  TempDir dir{"partkv-store-bench"};
  std::optional<Store> store;
  std::optional<Table> table;
  RawOptions raw_options;
  uint64_t flushed_entities = 0;
  // The keys the Get benchmarks look up, in a scrambled order: as partkv keys and as raw keys.
  std::vector<std::pair<std::string, std::string>> get_keys;
  struct RawKey {
    std::string key;
    rocksdb::ColumnFamilyHandle* cf;
  };
  std::vector<RawKey> raw_get_keys;

  size_t PartitionOf(std::string_view pk) const {
    return table->state().data().PartitionIndexOf(pk);
  }
  engine::TableData& data() const { return table->state().data(); }
};
Fixture* g_fixture = nullptr;

// One raw write: the encoded key and value partkv would write for an entity, and its partition.
struct RawWrite {
  std::string key;
  std::string value;
  size_t partition;
};

RawWrite EncodeForRaw(const Entity& e, int64_t ticks, uint64_t etag_version) {
  RawWrite w;
  w.key = engine::EntityKey(e.partition_key(), e.row_key());
  engine::EncodeValue(engine::ValueHeader{ticks, etag_version}, e, &w.value);
  w.partition = g_fixture->PartitionOf(e.partition_key());
  return w;
}

int64_t NowTicks() {
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  return DateTime::FromUnixMicros(micros).ticks;
}

struct FreshTable {
  TempDir dir{"partkv-store-bench-w"};
  std::optional<Store> store;
  std::optional<Table> table;
  FreshTable() {
    auto s = Store::Open(dir.Sub("store"));
    if (!s.ok()) Die("open store: " + s.status().ToString());
    store.emplace(std::move(*s));
    Status cs = store->CreateTable(kTableName, TableOptions{kPartitions});
    if (!cs.ok()) Die("create table: " + cs.ToString());
    auto t = store->OpenTable(kTableName);
    if (!t.ok()) Die("open table: " + t.status().ToString());
    table.emplace(std::move(*t));
  }
};

// --- Benchmarks ------------------------------------------------------------------------------

void BM_PartkvInsert(benchmark::State& state) {
  FreshTable fresh;
  Permutation order(g_config.inserts);
  std::vector<Entity> chunk;
  uint64_t done = 0;
  for (auto _ : state) {
    if (done % kChunkEntities == 0) {
      state.PauseTiming();
      chunk.clear();
      for (uint64_t k = done; k < std::min(done + kChunkEntities, order.size()); ++k) {
        chunk.push_back(MakeEntity(order[k]));
      }
      state.ResumeTiming();
    }
    auto r = fresh.table->Insert(chunk[done % kChunkEntities]);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    ++done;
  }
  state.SetItemsProcessed(static_cast<int64_t>(done));
}

void BM_RawPut(benchmark::State& state) {
  TempDir dir("partkv-store-bench-raw");
  RawDb raw(dir.Sub("db"), g_fixture->raw_options, kPartitions);
  Permutation order(g_config.inserts);
  std::vector<RawWrite> chunk;
  rocksdb::WriteOptions wo;
  uint64_t done = 0;
  for (auto _ : state) {
    if (done % kChunkEntities == 0) {
      state.PauseTiming();
      chunk.clear();
      int64_t ticks = NowTicks();
      for (uint64_t k = done; k < std::min(done + kChunkEntities, order.size()); ++k) {
        chunk.push_back(EncodeForRaw(MakeEntity(order[k]), ticks, 1'000'000 + k));
      }
      state.ResumeTiming();
    }
    const RawWrite& w = chunk[done % kChunkEntities];
    rocksdb::Status s = raw.db()->Put(wo, raw.partition(w.partition), w.key, w.value);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
    ++done;
  }
  state.SetItemsProcessed(static_cast<int64_t>(done));
}

constexpr uint64_t kChunkBatches = kChunkEntities / kEntitiesPerPartitionKey;

void BM_PartkvBatch(benchmark::State& state) {
  FreshTable fresh;
  Permutation order(g_config.batches);
  std::vector<Batch> chunk;
  uint64_t done = 0;
  for (auto _ : state) {
    if (done % kChunkBatches == 0) {
      state.PauseTiming();
      chunk.clear();
      for (uint64_t k = done; k < std::min(done + kChunkBatches, order.size()); ++k) {
        chunk.push_back(MakeInsertBatch(order[k]));
      }
      state.ResumeTiming();
    }
    auto r = fresh.table->Submit(chunk[done % kChunkBatches]);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    ++done;
  }
  state.SetItemsProcessed(static_cast<int64_t>(done * kEntitiesPerPartitionKey));
}

void BM_RawWriteBatch(benchmark::State& state) {
  TempDir dir("partkv-store-bench-raw");
  RawDb raw(dir.Sub("db"), g_fixture->raw_options, kPartitions);
  Permutation order(g_config.batches);
  std::vector<std::vector<RawWrite>> chunk;
  rocksdb::WriteOptions wo;
  uint64_t done = 0;
  for (auto _ : state) {
    if (done % kChunkBatches == 0) {
      state.PauseTiming();
      chunk.clear();
      int64_t ticks = NowTicks();
      for (uint64_t k = done; k < std::min(done + kChunkBatches, order.size()); ++k) {
        Batch b = MakeInsertBatch(order[k]);
        auto& writes = chunk.emplace_back();
        for (const auto& op : b.ops()) {
          writes.push_back(EncodeForRaw(op.entity, ticks, 1'000'000 + k * 100 + writes.size()));
        }
      }
      state.ResumeTiming();
    }
    // Building the WriteBatch is part of what a raw caller pays, as Submit builds one too.
    const auto& writes = chunk[done % kChunkBatches];
    rocksdb::WriteBatch wb;
    rocksdb::ColumnFamilyHandle* cf = raw.partition(writes.front().partition);
    for (const RawWrite& w : writes) wb.Put(cf, w.key, w.value).PermitUncheckedError();
    rocksdb::Status s = raw.db()->Write(wo, &wb);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
    ++done;
  }
  state.SetItemsProcessed(static_cast<int64_t>(done * kEntitiesPerPartitionKey));
}

void BM_PartkvGet(benchmark::State& state) {
  const auto& keys = g_fixture->get_keys;
  const Table& table = *g_fixture->table;
  uint64_t done = 0;
  for (auto _ : state) {
    const auto& [pk, rk] = keys[done % keys.size()];
    auto r = table.Get(pk, rk);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(r->property_count());
    ++done;
  }
  state.SetItemsProcessed(static_cast<int64_t>(done));
}

void BM_RawGet(benchmark::State& state) {
  const auto& keys = g_fixture->raw_get_keys;
  rocksdb::DB* db = g_fixture->store->state().db();
  rocksdb::ReadOptions ro;
  rocksdb::PinnableSlice value;
  uint64_t done = 0;
  for (auto _ : state) {
    const auto& k = keys[done % keys.size()];
    value.Reset();
    rocksdb::Status s = db->Get(ro, k.cf, k.key, &value);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(value.data());
    ++done;
  }
  state.SetItemsProcessed(static_cast<int64_t>(done));
}

// --- Set-up ----------------------------------------------------------------------------------

uint64_t SumProperty(rocksdb::DB* db, const engine::TableData& data, const std::string& name) {
  uint64_t total = 0;
  for (const auto& p : data.partitions()) {
    uint64_t v = 0;
    if (db->GetIntProperty(p.cf, name, &v)) total += v;
  }
  return total;
}

// "rocksdb.num-files-at-level<N>" is a string property, not an int one.
uint64_t SumFilesAtLevel(rocksdb::DB* db, const engine::TableData& data, int level) {
  uint64_t total = 0;
  for (const auto& p : data.partitions()) {
    std::string v;
    if (db->GetProperty(p.cf, rocksdb::DB::Properties::kNumFilesAtLevelPrefix + std::to_string(level), &v)) {
      total += std::strtoull(v.c_str(), nullptr, 10);
    }
  }
  return total;
}

// Waits (up to a minute) until no flush or compaction is pending or running, so the read
// benchmarks see a settled LSM tree.
void WaitForQuiet(rocksdb::DB* db, const engine::TableData& data) {
  for (int i = 0; i < 600; ++i) {
    uint64_t busy = SumProperty(db, data, rocksdb::DB::Properties::kCompactionPending) +
                    SumProperty(db, data, rocksdb::DB::Properties::kMemTableFlushPending);
    uint64_t running = 0;
    db->GetIntProperty(rocksdb::DB::Properties::kNumRunningCompactions, &running);
    busy += running;
    db->GetIntProperty(rocksdb::DB::Properties::kNumRunningFlushes, &running);
    busy += running;
    if (busy == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// Populates the read store: 90% of the entities are flushed to SST files, the last 10% stay in
// the memtables, so Gets hit SSTs through the block cache as well as memtables.
void BuildFixture(Fixture* f) {
  auto s = Store::Open(f->dir.Sub("store"));
  if (!s.ok()) Die("open store: " + s.status().ToString());
  f->store.emplace(std::move(*s));
  Status cs = f->store->CreateTable(kTableName, TableOptions{kPartitions});
  if (!cs.ok()) Die("create table: " + cs.ToString());
  auto t = f->store->OpenTable(kTableName);
  if (!t.ok()) Die("open table: " + t.status().ToString());
  f->table.emplace(std::move(*t));
  f->raw_options = OptionsLike(f->store->state());

  uint64_t batches = g_config.read_entities / kEntitiesPerPartitionKey;
  uint64_t flushed_batches = batches * 9 / 10;
  for (uint64_t b = 0; b < batches; ++b) {
    if (b == flushed_batches) {
      Status fs = f->store->Flush();
      if (!fs.ok()) Die("flush: " + fs.ToString());
      f->flushed_entities = b * kEntitiesPerPartitionKey;
    }
    auto r = f->table->Submit(MakeInsertBatch(b));
    if (!r.ok()) Die("populate: " + r.status().ToString());
  }
  rocksdb::DB* db = f->store->state().db();
  WaitForQuiet(db, f->data());

  uint64_t n = batches * kEntitiesPerPartitionKey;
  Permutation order(n);
  for (uint64_t i = 0; i < g_config.gets; ++i) {
    uint64_t e = order[i % n];
    std::string pk = PartitionKeyOf(e / kEntitiesPerPartitionKey);
    std::string rk = RowKeyOf(e);
    f->raw_get_keys.push_back(Fixture::RawKey{
        engine::EntityKey(pk, rk), f->data().partitions()[f->PartitionOf(pk)].cf});
    f->get_keys.emplace_back(std::move(pk), std::move(rk));
  }
  // Warm the block cache once, so neither Get side pays the first loads.
  rocksdb::PinnableSlice v;
  for (uint64_t e = 0; e < n; ++e) {
    std::string pk = PartitionKeyOf(e / kEntitiesPerPartitionKey);
    v.Reset();
    rocksdb::Status gs = db->Get(rocksdb::ReadOptions(),
                                 f->data().partitions()[f->PartitionOf(pk)].cf,
                                 engine::EntityKey(pk, RowKeyOf(e)), &v);
    if (!gs.ok()) Die("warm-up read: " + gs.ToString());
  }
}

std::string CompressionName(rocksdb::CompressionType type) {
  std::string name;
  if (!rocksdb::GetStringFromCompressionType(&name, type).ok()) name = std::to_string(type);
  return name;
}

std::vector<std::pair<std::string, std::string>> FixtureFacts(const Fixture& f) {
  rocksdb::DB* db = f.store->state().db();
  const auto& data = f.data();
  uint64_t ssts = SumFilesAtLevel(db, data, 0);
  uint64_t deeper = 0;
  for (int level = 1; level < 7; ++level) deeper += SumFilesAtLevel(db, data, level);
  const auto& o = f.raw_options;
  const auto* t = o.partition.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  return {
      {"physical partitions", std::to_string(kPartitions)},
      {"rocksdb options", fmt::format("block cache {} MiB, write-buffer manager {} MiB, "
                                      "write_buffer_size {} MiB, bloom {}, compression {}",
                                      t->block_cache->GetCapacity() >> 20,
                                      o.db.write_buffer_manager->buffer_size() >> 20,
                                      o.partition.write_buffer_size >> 20,
                                      t->filter_policy ? t->filter_policy->Name() : "none",
                                      CompressionName(o.partition.compression))},
      {"raw baseline", "a second DB with the store's options and a cache and write-buffer "
                       "manager of the same sizes; raw Get reads the store's own DB"},
      {"insert", fmt::format("{} single inserts into an empty table, scrambled order",
                             g_config.inserts)},
      {"batch", fmt::format("{} batches of 100 inserts into an empty table", g_config.batches)},
      {"get", fmt::format("{} Gets over {} entities ({} flushed: {} L0 + {} deeper SST files; "
                          "the rest in memtables), warm cache",
                          g_config.gets, g_config.read_entities, f.flushed_entities, ssts, deeper)},
      {"rounds", fmt::format("{} (pairs interleaved; ratio = median of per-round ratios)",
                             g_config.rounds)},
  };
}

// --- Reporting -------------------------------------------------------------------------------

// Collects each run's items/s by benchmark and round, while printing as usual: the wall-clock
// rate (items_per_second, what a caller sees) and the rate per second of the benchmark thread's
// CPU time (steadier when other processes share the cores).
struct Rate {
  double real = 0;
  double cpu = 0;
};

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
      if (it == run.counters.end() || run.cpu_accumulated_time <= 0) continue;
      rates_[name][round] = Rate{
          it->second.value,
          it->second.value * run.real_accumulated_time / run.cpu_accumulated_time};
    }
  }
  const std::map<std::string, std::map<int, Rate>>& rates() const { return rates_; }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::map<std::string, std::map<int, Rate>> rates_;
  std::vector<std::string> errors_;
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

struct Pair {
  const char* label;
  const char* partkv;
  const char* raw;
  void (*partkv_fn)(benchmark::State&);
  void (*raw_fn)(benchmark::State&);
  uint64_t iterations;
  double target;
};

int Main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  CLI::App app{"partkv-store-bench: partkv operations against raw RocksDB"};
  app.add_option("--rounds", g_config.rounds, "interleaved rounds of every pair")->check(CLI::Range(1, 99));
  app.add_option("--inserts", g_config.inserts, "single inserts per round")->check(CLI::PositiveNumber);
  app.add_option("--batches", g_config.batches, "100-insert batches per round")->check(CLI::PositiveNumber);
  app.add_option("--read_entities", g_config.read_entities, "entities in the read table")
      ->check(CLI::Range(uint64_t{1000}, uint64_t{100'000'000}));
  app.add_option("--gets", g_config.gets, "Gets per round")->check(CLI::PositiveNumber);
  app.add_option("--ratios_out", g_config.ratios_out, "write the ratios as JSON to this file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  Fixture fixture;
  g_fixture = &fixture;
  std::fprintf(stderr, "populating the read table (%llu entities)...\n",
               static_cast<unsigned long long>(g_config.read_entities));
  BuildFixture(&fixture);
  PrintConfiguration(stdout, "partkv-store-bench: partkv vs raw RocksDB, same process, same bytes",
                     FixtureFacts(fixture));

  const std::vector<Pair> pairs = {
      {"Insert / raw Put", "partkv_Insert", "raw_Put", BM_PartkvInsert, BM_RawPut,
       g_config.inserts, 0.7},
      {"Batch(100) / raw WriteBatch(100)", "partkv_Batch100", "raw_WriteBatch100", BM_PartkvBatch,
       BM_RawWriteBatch, g_config.batches, 0.6},
      {"Get / raw Get", "partkv_Get", "raw_Get", BM_PartkvGet, BM_RawGet, g_config.gets, 0.7},
  };
  for (int round = 1; round <= g_config.rounds; ++round) {
    for (const Pair& p : pairs) {
      auto add = [&](const char* name, void (*fn)(benchmark::State&)) {
        benchmark::RegisterBenchmark(fmt::format("{}/round:{}", name, round).c_str(), fn)
            ->Iterations(static_cast<benchmark::IterationCount>(p.iterations))
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
      };
      // Alternate who goes first, so background work left by one side does not always fall on
      // the other.
      if (round % 2 == 1) {
        add(p.partkv, p.partkv_fn);
        add(p.raw, p.raw_fn);
      } else {
        add(p.raw, p.raw_fn);
        add(p.partkv, p.partkv_fn);
      }
    }
  }
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  nlohmann::json out;
  out["configuration"] = nlohmann::json::object();
  for (const auto& [k, v] : ConfigurationFacts()) out["configuration"][k] = v;
  for (const auto& [k, v] : FixtureFacts(fixture)) out["configuration"][k] = v;
  out["ratios"] = nlohmann::json::array();

  std::printf("\n%-34s %11s %11s %7s %7s %8s\n", "items/s (median of rounds)", "partkv",
              "raw", "ratio", "target", "");
  bool all_met = true;
  std::vector<std::string> cpu_lines;
  for (const Pair& p : pairs) {
    auto pk = reporter.rates().find(p.partkv);
    auto rw = reporter.rates().find(p.raw);
    if (pk == reporter.rates().end() || rw == reporter.rates().end()) {
      std::printf("%-34s %11s\n", p.label, "not run");
      continue;
    }
    std::vector<double> partkv_rates, raw_rates, ratios, cpu_ratios;
    for (const auto& [round, rate] : pk->second) {
      partkv_rates.push_back(rate.real);
      if (auto r = rw->second.find(round); r != rw->second.end() && r->second.real > 0) {
        ratios.push_back(rate.real / r->second.real);
        cpu_ratios.push_back(rate.cpu / r->second.cpu);
      }
    }
    for (const auto& [round, rate] : rw->second) raw_rates.push_back(rate.real);
    double ratio = Median(ratios);
    double cpu_ratio = Median(cpu_ratios);
    bool met = ratio >= p.target;
    all_met = all_met && met;
    std::printf("%-34s %11.0f %11.0f %6.2fx %6.2fx %8s\n", p.label, Median(partkv_rates),
                Median(raw_rates), ratio, p.target, met ? "met" : "MISSED");
    std::string rounds;
    for (double r : ratios) rounds += fmt::format(" {:.2f}", r);
    cpu_lines.push_back(fmt::format("  {:<32} per round:{}; by CPU time {:.2f}x", p.label, rounds,
                                    cpu_ratio));
    out["ratios"].push_back({{"pair", p.label},
                             {"partkv", p.partkv},
                             {"raw", p.raw},
                             {"partkv_items_per_second", Median(partkv_rates)},
                             {"raw_items_per_second", Median(raw_rates)},
                             {"per_round_ratios", ratios},
                             {"ratio", ratio},
                             {"ratio_by_cpu_time", cpu_ratio},
                             {"target", p.target},
                             {"met", met}});
  }
  for (const auto& line : cpu_lines) std::printf("%s\n", line.c_str());
  out["all_targets_met"] = all_met;
  for (const auto& e : reporter.errors()) std::fprintf(stderr, "partkv-store-bench: error: %s\n", e.c_str());
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
