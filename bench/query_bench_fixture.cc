#include "bench/query_bench_fixture.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "engine/key_codec.h"
#include "fmt/format.h"

namespace partkv::bench::query_bench {

Config g_config;
Fixtures* g_fixtures = nullptr;

void Die(const std::string& what) {
  std::fprintf(stderr, "partkv-query-bench: error: %s\n", what.c_str());
  std::exit(1);
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

}  // namespace

BenchStore::BenchStore() {
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

}  // namespace partkv::bench::query_bench
