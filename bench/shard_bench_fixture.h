// partkv-shard-bench's data and store (the program is described in shard_bench_main.cc): its
// configuration, the orders it writes, and the one store holding the one-partition table and a
// sharded table per suffix count, each populated with the same days of orders.
//
// The benchmarks reach the configuration through g_config, as Google Benchmark calls them with
// nothing but their State (and the table they read); Main sets it before building the fixture.

#ifndef PARTKV_BENCH_SHARD_BENCH_FIXTURE_H_
#define PARTKV_BENCH_SHARD_BENCH_FIXTURE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/front/front_access.h"
#include "bench/bench_internal.h"
#include "engine/local/store_state.h"
#include "partkv/keys.h"
#include "partkv/store.h"
#include "rocksdb/db.h"

namespace partkv::bench::shard_bench {

inline constexpr uint32_t kPartitions = 16;
inline constexpr uint32_t kPageSize = 1000;
// The day every timed read asks for.
inline constexpr char kDay[] = "2018-08-09";
// The suffix counts measured; kTargetShards is the one issue #4's target is about.
inline constexpr uint32_t kShardCounts[] = {200, 50, 20};
inline constexpr uint32_t kTargetShards = 200;
inline constexpr double kTargetRatio = 0.4;

struct Config {
  int rounds = 5;
  double min_time = 1.0;
  // When set, every run makes exactly this many iterations instead of running for min_time:
  // for instruction counts (valgrind --tool=callgrind), which need a fixed amount of work.
  int64_t iterations = 0;
  uint64_t entities = 10000;
  int noise_days = 2;
  uint64_t seed = 20180809;
  std::string ratios_out;
};
extern Config g_config;

// The days written, in date order: kDay and g_config.noise_days others around it (after, before,
// after, ...), each with g_config.entities orders. Order ids are numbered through the days in
// date order.
std::vector<std::string> Days();

struct BenchTable {
  std::string name;
  uint32_t shards = 0;  // 0: the one-partition table
  std::optional<KeyStrategy> strategy;
  std::optional<Table> table;
  uint64_t entities = 0;
  // The day's RowKeys in order, and (sharded) the PartitionKey each was written under.
  std::vector<std::string> day_row_keys;
  std::vector<std::string> day_partition_keys;
  uint64_t day_partition_keys_used = 0;  // distinct shards the day's entities landed in
};

struct Fixture {
  TempDir dir{"partkv-shard-bench"};
  std::optional<Store> store;
  BenchTable single;
  std::vector<BenchTable> sharded;  // in kShardCounts order

  rocksdb::DB* db() const { return FrontAccess::Of(*store).db(); }
};

// Opens the store of `f` and creates its tables: OnePartition, then Sharded<N> for each of
// kShardCounts, each of kPartitions physical partitions. Populates each with every day of
// Days() in batches of 100 (one PartitionKey per batch), the sharded ones under the suffixes their
// strategy draws from a std::mt19937_64 seeded with g_config.seed + N. Then flushes and waits for
// the compactions to settle. Dies on any error.
void BuildFixture(Fixture* f);

// The one-partition table, then the sharded ones in kShardCounts order.
std::vector<const BenchTable*> AllTables(const Fixture& f);

// "L0 a, L1 b, ... SST files" summed over the physical partitions of `t` (non-empty levels
// only), or "no SST files".
std::string LsmShape(const Fixture& f, const BenchTable& t);

}  // namespace partkv::bench::shard_bench

#endif  // PARTKV_BENCH_SHARD_BENCH_FIXTURE_H_
