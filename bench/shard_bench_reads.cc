#include "bench/shard_bench_reads.h"

#include <vector>

#include "fmt/format.h"
#include "rocksdb/perf_context.h"
#include "rocksdb/perf_level.h"

namespace partkv::bench::shard_bench {

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

}  // namespace partkv::bench::shard_bench
