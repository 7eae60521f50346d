#include "bench/query_bench_fixture.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <thread>
#include <tuple>

#include "engine/key_codec.h"
#include "fmt/format.h"
#include "partkv/bulk_writer.h"
#include "partkv/stored_entity.h"
#include "rocksdb/utilities/checkpoint.h"

namespace partkv::bench::query_bench {

Config g_config;
Fixtures* g_fixtures = nullptr;

bool Config::Runs(std::string_view phase) const {
  return std::find(phases.begin(), phases.end(), phase) != phases.end();
}

namespace {

uint64_t SumProperty(const BenchStore& s, const std::string& name) {
  uint64_t total = 0;
  (void)total;  // the table's partitions live in the store's shared column families
  return StoreIntProperty(s.db(), name);
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

// splitmix64, so that an entity's property values are a pure function of its number.
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// The "Count" of entity n of either table: uniform over 0..99,999.
int32_t CountOf(uint64_t n) { return static_cast<int32_t>(Mix(n) % 100000); }

// Writes entities 0..n-1 of `make` with one BulkWriter in the order of their keys in the store
// (physical partition, then PartitionKey, then RowKey), then flushes and settles: every column
// family's memtable then fills in key order, so its flushes write SST files that do not overlap
// and compactions mostly move files. Upserts, as the table is new: nothing to read first.
void BulkPopulate(BenchStore* s, uint64_t n, const std::function<Entity(uint64_t)>& make) {
  const uint64_t pks = (n + kEntitiesPerPartitionKey - 1) / kEntitiesPerPartitionKey;
  std::vector<std::tuple<size_t, std::string, uint64_t>> order;
  order.reserve(pks);
  for (uint64_t p = 0; p < pks; ++p) {
    std::string pk = PartitionKeyOf(p);
    size_t physical = s->data().PartitionIndexOf(pk);
    order.emplace_back(physical, std::move(pk), p);
  }
  std::sort(order.begin(), order.end());
  BulkWriteOptions options;
  options.mode = OpType::kInsertOrReplace;
  auto writer = BulkWriter::Create(*s->table, options);
  if (!writer.ok()) Die("populate: " + writer.status().ToString());
  for (const auto& [physical, pk, p] : order) {
    const uint64_t end = std::min(n, (p + 1) * kEntitiesPerPartitionKey);
    for (uint64_t row = p * kEntitiesPerPartitionKey; row < end; ++row) {
      if (Status st = writer->Add(make(row)); !st.ok()) Die("populate: " + st.ToString());
    }
  }
  if (Status st = writer->Finish(); !st.ok()) Die("populate: " + st.ToString());
  s->entities += n;
  Settle(s);
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Encoded key and value bytes of `e` as stored (the value with a typical header).
size_t StoredSize(const Entity& e) {
  StoredEntity stored =
      EncodeStoredEntity(e, DateTime::FromUnixMicros(1'700'000'000'000'000LL), 1'000'000);
  return stored.key.size() + stored.value.size();
}

}  // namespace

BenchStore::BenchStore(const StoreOptions& options) {
  auto s = Store::Open(dir.Sub("store"), options);
  if (!s.ok()) Die("open store: " + s.status().ToString());
  store.emplace(std::move(*s));
  TableOptions table_options;
  table_options.physical_partitions = kPartitions;
  Status cs = store->CreateTable(kTableName, table_options);
  if (!cs.ok()) Die("create table: " + cs.ToString());
  auto t = store->OpenTable(kTableName);
  if (!t.ok()) Die("open table: " + t.status().ToString());
  table.emplace(std::move(*t));
}

BenchStore::BenchStore(const BenchStore& from, const StoreOptions& options)
    : entities(from.entities) {
  rocksdb::Checkpoint* raw = nullptr;
  rocksdb::Status cs = rocksdb::Checkpoint::Create(from.db(), &raw);
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  // log_size_for_flush 0: the memtables are flushed first, so the copy has no log to replay.
  if (cs.ok()) cs = checkpoint->CreateCheckpoint(dir.Sub("store"), /*log_size_for_flush=*/0);
  if (!cs.ok()) Die("copy store: " + cs.ToString());
  StoreOptions existing = options;
  existing.create_if_missing = false;
  auto s = Store::Open(dir.Sub("store"), existing);
  if (!s.ok()) Die("open copied store: " + s.status().ToString());
  store.emplace(std::move(*s));
  auto t = store->OpenTable(kTableName);
  if (!t.ok()) Die("open copied table: " + t.status().ToString());
  table.emplace(std::move(*t));
}

std::string LsmShape(const BenchStore& s) { return bench::LsmShape(*s.table); }

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

void PopulateLayout(BenchStore* s, uint64_t n) {
  Permutation order(n / kEntitiesPerPartitionKey);
  for (uint64_t i = 0; i < order.size(); ++i) Submit(s, MakeInsertBatch(order[i]));
  Settle(s);
}

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
    const std::string& prefix = f->s.PartOf(pk).prefix;
    f->raw.push_back({prefix + engine::EntityKey(pk, first), prefix + upper, f->s.PartOf(pk).cf});
  }
}

Entity MakeSmallEntity(uint64_t n) {
  static constexpr const char* kStates[] = {"idle", "busy", "warm", "cold"};
  uint64_t r = Mix(n);
  Entity e(PartitionKeyOf(n / kEntitiesPerPartitionKey), RowKeyOf(n));
  // Names are appended in sorted order (the entity keeps its properties sorted).
  e.AppendSorted("Count", Value::Int32(CountOf(n)));
  e.AppendSorted("Reading", Value::Double(static_cast<double>((r >> 20) % 1000003) / 1000.0));
  e.AppendSorted("Site", Value::String(fmt::format("site-{:04d}", (r >> 8) % 10000)));
  e.AppendSorted("State", Value::String(kStates[(r >> 40) % std::size(kStates)]));
  return e;
}

Entity MakeWideEntity(uint64_t n) {
  uint64_t r = Mix(n);
  Entity e(PartitionKeyOf(n / kEntitiesPerPartitionKey), RowKeyOf(n));
  e.AppendSorted("Count", Value::Int32(CountOf(n)));
  std::string payload(kWidePayloadBytes, '\0');
  for (size_t i = 0; i < payload.size(); ++i) {
    if (i % 8 == 0) r = Mix(r);
    payload[i] = static_cast<char>(r >> (8 * (i % 8)));
  }
  e.AppendSorted("Payload", Value::Binary(std::move(payload)));
  return e;
}

void BuildParallel(ParallelFixture* f, uint64_t n) {
  auto start = std::chrono::steady_clock::now();
  {
    BenchStore built;
    BulkPopulate(&built, n, MakeSmallEntity);
    StoreOptions options;
    options.scan_threads = 1;
    f->one_thread.emplace(built, options);
    options.scan_threads = 2;
    f->two_threads.emplace(built, options);
  }
  f->build_seconds = SecondsSince(start);
  for (uint64_t i = 0; i < n; ++i) {
    if (CountOf(i) < kParallelCountBound) ++f->matching;
  }
}

uint64_t BlockCacheUsage(const BenchStore& s) {
  uint64_t usage = 0;
  s.db()->GetIntProperty(rocksdb::DB::Properties::kBlockCacheUsage, &usage);
  return usage;
}

void ReadHotSet(const HotSetFixture& f) {
  for (const auto& [pk, rk] : f.hot) {
    if (auto r = f.s->table->Get(pk, rk); !r.ok()) Die("hot set: " + r.status().ToString());
  }
}

void BuildHotSet(HotSetFixture* f, uint64_t n) {
  auto start = std::chrono::steady_clock::now();
  {
    BenchStore built;
    BulkPopulate(&built, n, MakeWideEntity);
    StoreOptions options;
    options.memory_budget_bytes = g_config.hot_memory_budget_mib << 20;
    options.scan_threads = 1;
    f->s.emplace(built, options);
  }
  f->build_seconds = SecondsSince(start);
  f->sst_bytes = StoreIntProperty(f->s->db(), rocksdb::DB::Properties::kTotalSstFilesSize);
  Permutation order(n);
  for (uint64_t i = 0; i < std::min(g_config.hot_keys, n); ++i) {
    f->hot.emplace_back(PartitionKeyOf(order[i] / kEntitiesPerPartitionKey), RowKeyOf(order[i]));
  }
  f->cache_before_bytes = BlockCacheUsage(*f->s);
  // Twice: a hot set is read over and over, and a block read again is one the cache keeps longer.
  ReadHotSet(*f);
  ReadHotSet(*f);
  f->cache_hot_bytes = BlockCacheUsage(*f->s);
}

std::vector<std::pair<std::string, std::string>> FixtureFacts(const Fixtures& f) {
  auto mib = [](uint64_t bytes) { return fmt::format("{:.1f} MiB", bytes / 1048576.0); };
  std::vector<std::pair<std::string, std::string>> facts = {
      {"physical partitions", fmt::format("{} per table; each fixture in its own store with the "
                                          "default memory budget (64 MiB) unless said otherwise",
                                          kPartitions)},
  };
  if (g_config.Runs(kPhaseScan)) {
    facts.insert(
        facts.end(),
        {{"partition scan",
          fmt::format("{} entities of one PartitionKey ({}), page size 1000, "
                      "tokens followed, entities decoded; {}",
                      f.single.entities, kSinglePartitionKey, LsmShape(f.single))},
         {"table scan", fmt::format("{} entities over {} PartitionKeys, no conditions, merged "
                                    "over {} physical partitions, scan_threads 1; {}",
                                    f.wide.entities, f.wide.entities / kEntitiesPerPartitionKey,
                                    kPartitions, LsmShape(f.wide))},
         {"raw baseline",
          "one rocksdb::Iterator with bounds on the store's own column family, "
          "touching key and value bytes; the table scan is compared with the raw "
          "rate of the partition scan"}});
  }
  facts.emplace_back("timing", fmt::format("rates from the benchmark thread's CPU time (the "
                                           "scan-threads pair: wall-clock time); each run >= {} s",
                                           g_config.min_time));
  if (g_config.Runs(kPhaseBounded)) {
    facts.insert(
        facts.end(),
        {{"bounded query", fmt::format("100 rows of one PartitionKey (partition_key + RowKey "
                                       "bounds), cycling over {} PartitionKeys spread over the "
                                       "table",
                                       f.small.targets.size())},
         {"small table", fmt::format("{} entities; {}", f.small.s.entities, LsmShape(f.small.s))},
         {"large table", fmt::format("{} entities; {}", f.large.s.entities, LsmShape(f.large.s))}});
  }
  if (g_config.Runs(kPhaseScan) || g_config.Runs(kPhaseBounded)) {
    facts.emplace_back("population",
                       "batches of 100 (scrambled order except the single "
                       "partition), flushed, compactions settled, every fixture "
                       "read once before timing");
  }
  if (const ParallelFixture* p = f.parallel ? &*f.parallel : nullptr) {
    const BenchStore& s = *p->one_thread;
    facts.insert(
        facts.end(),
        {{"scan threads: table",
          fmt::format("{} entities of {} B (stored) over {} PartitionKeys; {}; {} in SST files; "
                      "written with a BulkWriter in key order, built and copied in {:.1f} s",
                      s.entities, StoredSize(MakeSmallEntity(0)),
                      (s.entities + kEntitiesPerPartitionKey - 1) / kEntitiesPerPartitionKey,
                      LsmShape(s),
                      mib(StoreIntProperty(s.db(), rocksdb::DB::Properties::kTotalSstFilesSize)),
                      p->build_seconds)},
         {"scan threads: query",
          fmt::format("table-wide, filter \"{}\" (a property, no key condition) matching {} "
                      "entities ({:.2f}%), default page size (1000), scan_budget UINT64_MAX, "
                      "paged to the end",
                      kParallelFilter, p->matching,
                      s.entities > 0 ? 100.0 * p->matching / s.entities : 0.0)},
         {"scan threads: stores",
          fmt::format("two copies of one store (a RocksDB checkpoint: the same SST files), "
                      "opened with scan_threads 1 and 2, default memory budget; rate = entities "
                      "filtered per wall-clock second, on a machine of {} cores",
                      std::thread::hardware_concurrency())}});
  }
  if (const HotSetFixture* h = f.hot ? &*f.hot : nullptr) {
    const BenchStore& s = *h->s;
    facts.insert(
        facts.end(),
        {{"hot set: table",
          fmt::format("{} entities of {} B (stored; incompressible payload) over {} "
                      "PartitionKeys; {}; {} in SST files; written with a BulkWriter in key "
                      "order, built and copied in {:.1f} s",
                      s.entities, StoredSize(MakeWideEntity(0)),
                      (s.entities + kEntitiesPerPartitionKey - 1) / kEntitiesPerPartitionKey,
                      LsmShape(s), mib(h->sst_bytes), h->build_seconds)},
         {"hot set: store",
          fmt::format("memory budget {} MiB (the block cache's capacity), scan_threads 1; block "
                      "cache in use {} after open, {} after reading the hot set twice alone",
                      g_config.hot_memory_budget_mib, mib(h->cache_before_bytes),
                      mib(h->cache_hot_bytes))},
         {"hot set: reads",
          fmt::format("Table::Get over {} keys scattered over the table, in a fixed order, on "
                      "the benchmark thread; the hot set is read twice before every run",
                      h->hot.size())},
         {"hot set: scan beside",
          "one more thread pages through full-table scans (no conditions, default page size) on "
          "the same store, over and over, from before the run's first read to after its last; "
          "with scan_threads 1 the two workloads take one core each and no more"},
         {"hot set: timing",
          "the claim: reads per second of the reader thread's CPU time (steady on a shared "
          "machine, and a block the scan evicted costs the reader CPU to read again); reads per "
          "wall-clock second for context"}});
  }
  facts.emplace_back("rounds", fmt::format("{} (pairs interleaved; ratio = median of per-round "
                                           "ratios)",
                                           g_config.rounds));
  return facts;
}

}  // namespace partkv::bench::query_bench
