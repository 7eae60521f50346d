// partkv-store-bench's benchmark bodies (the program is described in store_bench_main.cc), in
// pairs: each partkv operation and its raw RocksDB counterpart on the same key and value bytes.
//
// Every write benchmark starts from an empty database (FreshTable, or a RawDb configured like the
// store) and runs g_config's fixed number of operations, generating entities outside the timed
// region; the Get benchmarks read g_fixture. Each sets items processed, so the reporter gets
// items_per_second; an operation that fails skips the run with its error.

#ifndef PARTKV_BENCH_STORE_BENCH_BENCHMARKS_H_
#define PARTKV_BENCH_STORE_BENCH_BENCHMARKS_H_

#include <benchmark/benchmark.h>

namespace partkv::bench::store_bench {

// Table::Insert of single entities, in a scrambled order.
void BM_PartkvInsert(benchmark::State& state);
// DB::Put of the same entities' keys and values, routed to the column family the table uses.
void BM_RawPut(benchmark::State& state);

// Table::Submit of 100-insert batches, in a scrambled order.
void BM_PartkvBatch(benchmark::State& state);
// One rocksdb::WriteBatch of the same 100 puts, built inside the timed region.
void BM_RawWriteBatch(benchmark::State& state);

// Table::Get decoded into an Entity, over g_fixture's scrambled keys.
void BM_PartkvGet(benchmark::State& state);
// DB::Get into a PinnableSlice of the same keys, on the store's own column families.
void BM_RawGet(benchmark::State& state);

}  // namespace partkv::bench::store_bench

#endif  // PARTKV_BENCH_STORE_BENCH_BENCHMARKS_H_
