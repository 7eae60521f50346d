// partkv-query-bench's benchmark bodies (the program is described in query_bench_main.cc): the
// partkv queries, paged through with their continuation tokens and every entity decoded, and the
// raw rocksdb::Iterator scans of the same key ranges on the same column families.
//
// They read g_fixtures. Each sets items processed (rows for the scans, queries for the
// key-bounded runs), so the reporter gets items_per_second, and checks it saw exactly the
// expected rows; a run that fails or sees other rows is skipped with its error.

#ifndef PARTKV_BENCH_QUERY_BENCH_BENCHMARKS_H_
#define PARTKV_BENCH_QUERY_BENCH_BENCHMARKS_H_

#include <benchmark/benchmark.h>

#include "bench/query_bench_fixture.h"

namespace partkv::bench::query_bench {

// Every entity of the single fixture's one PartitionKey, page size 1000.
void BM_PartkvPartitionScan(benchmark::State& state);
// The same through one reused Page (QueryEntities(q, &page)), kept across iterations.
void BM_PartkvPartitionScanReused(benchmark::State& state);
// One raw iterator over the same key range.
void BM_RawPartitionScan(benchmark::State& state);

// Every entity of the wide fixture, no conditions, merged over its physical partitions.
void BM_PartkvTableScan(benchmark::State& state);
// The same through one reused Page.
void BM_PartkvTableScanReused(benchmark::State& state);
void BM_PartkvTableFilter(benchmark::State& state);

// The 100-row key-bounded queries of `f`, cycling over its targets; items are queries, so
// items/s is the inverse of the mean latency.
void BM_PartkvBounded(benchmark::State& state, const BoundedFixture* f);
// One raw iterator over each query's encoded key range.
void BM_RawBounded(benchmark::State& state, const BoundedFixture* f);

// Pages through kParallelFilter over the whole table of `s` (a copy in g_fixtures->parallel) to
// the end; items are the table's entities, filtered per second (register with UseRealTime: the
// claim is what more threads do for the caller's wait).
void BM_ParallelFilter(benchmark::State& state, const BenchStore* s);

// Point reads (Table::Get) over the hot set of g_fixtures->hot, alone or with a thread paging
// through full-table scans of the same store beside them; items are reads. Register with
// UseRealTime: the scan's counter is per wall-clock second, and the reader's CPU time comes with
// the run. Counters: block_reads (blocks the reader read from files per Get, its cache misses)
// and, beside a scan, scan_rows (rows per second the scan went through).
void BM_HotReads(benchmark::State& state, bool beside_scan);

// Reads every fixture once, untimed, so no measured run pays the first block loads; dies on an
// error.
void Warm(const Fixtures& f);

}  // namespace partkv::bench::query_bench

#endif  // PARTKV_BENCH_QUERY_BENCH_BENCHMARKS_H_
