#include "bench/store_bench_benchmarks.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "api/front/front_access.h"
#include "bench/bench_common.h"
#include "bench/store_bench_fixture.h"
#include "engine/key_codec.h"
#include "engine/local/store_state.h"
#include "engine/value_codec.h"
#include "rocksdb/db.h"
#include "rocksdb/write_batch.h"

namespace partkv::bench::store_bench {
namespace {

// Entities generated per untimed refill: large enough that pausing the timer is noise.
constexpr uint64_t kChunkEntities = 10000;
constexpr uint64_t kChunkBatches = kChunkEntities / kEntitiesPerPartitionKey;

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

}  // namespace

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
  rocksdb::DB* db = FrontAccess::Of(*g_fixture->store).db();
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

}  // namespace partkv::bench::store_bench
