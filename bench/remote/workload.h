// The workload of the remote-client benchmark (bench/remote/run.sh): its counts, keys and
// entities, which bench/remote/sdk_bench.mjs writes and reads the same way through
// @azure/data-tables. A change here is a change there: the two clients must send the same
// requests, or their figures compare nothing.
//
//   insert16      single inserts, 16 in flight: PartitionKey "ins" + (i mod 64), RowKey %08d of i
//   batch100      batches of 100, one after the other: PartitionKey "p10k" (query10k's rows),
//                 then "p100k" (query100k's)
//   get16         point reads of insert16's entities, 16 in flight, scattered order
//   query10k      the "p10k" partition paged to the end, pages of 1000
//   query100k     the "p100k" partition the same way (peak RSS: the same as query10k's when the
//                 client holds a page, not the result)
//   shards_full   one logical key written under hash-suffix(base,id,200,hash=md5), read whole:
//   shards_paged  partkv pages through Table::QueryShards; the SDK reads every shard (8 at once)
//                 and merges by RowKey (full), or merges shard cursors into pages (paged)
//
// Before the phases, untimed, each client warms up: 1,000 inserts into PartitionKey "warm" (16
// in flight), 1,000 entities in batches into "warmb", 1,000 reads of "warm" (16 in flight), and
// "warmb" paged — Node's JIT compiles the SDK's paths then, and both open their connections.
//
// Every entity holds five properties besides its keys (sharded ones also `base` and `id`):
// name (String), city (String), amount (Double, i + 0.5: never integral, so both clients send
// a Double), count (Int32), flag (String).

#ifndef PARTKV_BENCH_REMOTE_WORKLOAD_H_
#define PARTKV_BENCH_REMOTE_WORKLOAD_H_

#include <cstdint>
#include <string>

#include "partkv/entity.h"
#include "partkv/keys.h"

namespace partkv::bench::remote {

struct Workload {
  uint64_t inserts = 10'000;
  uint64_t reads = 10'000;
  uint64_t small_partition = 10'000;   // query10k
  uint64_t large_partition = 100'000;  // query100k
  uint64_t sharded = 10'000;           // entities of the sharded logical key
  uint32_t shards = 200;
  uint32_t in_flight = 16;
  uint32_t page_size = 1000;

  // Every count times `scale`, rounded to a multiple of 100 (at least 100), as sdk_bench.mjs
  // rounds them.
  static Workload Scaled(double scale);
};

inline constexpr char kShardBase[] = "2026-12-03";
inline constexpr char kWarmShardBase[] = "warm";  // the untimed warm-up's sharded key

// "%08d".
std::string RowKeyOf(uint64_t i);
// insert16's PartitionKey of entity i: "ins" + (i mod 64).
std::string InsertPartitionOf(uint64_t i);
// The entity (pk, rk) with the payload of i.
Entity PayloadEntity(std::string pk, std::string rk, uint64_t i);
// Sharded entity i of the logical key `base`: RowKey and id %08d of i, the payload of i, no
// PartitionKey (the table's scheme computes it).
Entity ShardedEntity(uint64_t i, const char* base);
// hash-suffix(base,id,N,hash=md5).
KeyStrategy ShardScheme(uint32_t shards);

}  // namespace partkv::bench::remote

#endif  // PARTKV_BENCH_REMOTE_WORKLOAD_H_
