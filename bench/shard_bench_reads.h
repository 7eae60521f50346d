// partkv-shard-bench's reads (the program is described in shard_bench_main.cc): one read of the
// day kDay from a table on its own path — QueryEntities on the one-partition table, QueryShards
// on a sharded one — paging through one reused Page; the benchmark body that times it; and the
// untimed check that every table's read returns the same entities.

#ifndef PARTKV_BENCH_SHARD_BENCH_READS_H_
#define PARTKV_BENCH_SHARD_BENCH_READS_H_

#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <string>

#include "bench/shard_bench_fixture.h"
#include "partkv/store.h"

namespace partkv::bench::shard_bench {

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

// Reads the day from `t` per iteration, after one untimed read (the runs of the other tables may
// have pushed this table's blocks out of the shared cache, and the claim is about warm reads).
// Every read must end at the day's last RowKey with the day's row count, else the run is skipped.
void BM_ReadDay(benchmark::State& state, const BenchTable* t);

// Reads each table's day once, untimed, and checks it entity by entity against the one-partition
// read: the same RowKeys in the same order, the PartitionKey each was written under, equal
// properties; dies on a difference. Then reads each table twice more, the second time counting
// block cache hits and misses. Returns each table's read statistics by table name, for the
// configuration. Also warms the block cache.
std::map<std::string, ReadStats> Verify(const Fixture& f);

}  // namespace partkv::bench::shard_bench

#endif  // PARTKV_BENCH_SHARD_BENCH_READS_H_
