// What the benchmarks of partkv's internals share beyond bench_common.h: RocksDB properties of a
// store's database, reached through the engine. Those benchmarks (store, query, shard, memory,
// throttle, codec) link partkv_bench_internal, which brings partkv_internals; a program linking
// libpartkv (partkv::partkv) must not link it as well (each would bring its own copy of the
// library's objects).

#ifndef PARTKV_BENCH_BENCH_INTERNAL_H_
#define PARTKV_BENCH_BENCH_INTERNAL_H_

#include <cstdint>
#include <string>

#include "bench/bench_common.h"
#include "partkv/table.h"

namespace rocksdb {
class DB;
}  // namespace rocksdb

namespace partkv::bench {

// The shape of the LSM trees of the store holding `table` (every column family of the store,
// summed; tables share them): "L0 2, L1 16 SST files" (or "no SST files"), for the
// configuration block.
std::string LsmShape(const Table& table);
// An int property summed over every column family of the store (tables share them), and the SST
// files at `level` over every column family.
uint64_t StoreIntProperty(rocksdb::DB* db, const std::string& name);
uint64_t StoreFilesAtLevel(rocksdb::DB* db, int level);

}  // namespace partkv::bench

#endif  // PARTKV_BENCH_BENCH_INTERNAL_H_
