#include "bench/shard_bench_fixture.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <thread>

#include "engine/local/table_handle.h"
#include "fmt/format.h"

namespace partkv::bench::shard_bench {

Config g_config;

namespace {

std::string OrderId(uint64_t order) { return fmt::format("ORD-{:08d}", order); }

// Order `order` of `day`, under PartitionKey `day` (the sharded tables replace it).
Entity MakeOrder(uint64_t order, const std::string& day) {
  Entity e = MakeEntity(order);
  e.set_partition_key(day);
  e.set_row_key(OrderId(order));
  e.Set("date", Value::String(day));
  return e;
}

uint64_t SumProperty(const Fixture& f, const std::vector<const BenchTable*>& tables,
                     const std::string& name) {
  uint64_t total = 0;
  (void)tables;  // every table's partitions live in the store's shared column families
  (void)total;
  return StoreIntProperty(f.db(), name);
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

}  // namespace

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

std::vector<const BenchTable*> AllTables(const Fixture& f) {
  std::vector<const BenchTable*> all = {&f.single};
  for (const auto& t : f.sharded) all.push_back(&t);
  return all;
}

std::string LsmShape(const Fixture&, const BenchTable& t) { return bench::LsmShape(*t.table); }

void BuildFixture(Fixture* f) {
  auto s = Store::Open(f->dir.Sub("store"));
  if (!s.ok()) Die("open store: " + s.status().ToString());
  f->store.emplace(std::move(*s));
  OpenTable(f, &f->single, "OnePartition", 0);
  f->sharded.resize(std::size(kShardCounts));
  for (size_t i = 0; i < std::size(kShardCounts); ++i) {
    OpenTable(f, &f->sharded[i], fmt::format("Sharded{}", kShardCounts[i]), kShardCounts[i]);
  }
  std::vector<BenchTable*> populate = {&f->single};
  for (BenchTable& t : f->sharded) populate.push_back(&t);
  for (BenchTable* t : populate) {
    std::fprintf(stderr, "populating: %s...\n", t->name.c_str());
    Populate(t);
  }
  if (Status fs = f->store->Flush(); !fs.ok()) Die("flush: " + fs.ToString());
  WaitForQuiet(*f);
}

}  // namespace partkv::bench::shard_bench
