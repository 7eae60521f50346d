// partkv-query-bench's data and stores (the program is described in query_bench_main.cc): its
// configuration and its four fixtures, each a store of its own (its own block cache) holding one
// table of kPartitions physical partitions, populated in batches of 100, flushed and left to
// settle its compactions before anything reads it.
//
// The benchmarks reach the configuration and the fixtures through g_config and g_fixtures, as
// Google Benchmark calls them with nothing but their State; Main sets both before registering any.

#ifndef PARTKV_BENCH_QUERY_BENCH_FIXTURE_H_
#define PARTKV_BENCH_QUERY_BENCH_FIXTURE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/front/front_access.h"
#include "bench/bench_internal.h"
#include "engine/store_state.h"
#include "engine/table_handle.h"
#include "partkv/store.h"
#include "rocksdb/db.h"

namespace partkv::bench::query_bench {

inline constexpr uint32_t kPartitions = 16;
inline constexpr char kTableName[] = "Bench";
// The one PartitionKey of the partition-scan fixture.
inline constexpr char kSinglePartitionKey[] = "device-00000";

struct Config {
  int rounds = 5;
  double min_time = 1.0;
  // When set, every run makes exactly this many iterations instead of running for min_time:
  // for instruction counts (valgrind --tool=callgrind), which need a fixed amount of work.
  int64_t iterations = 0;
  uint64_t scan_entities = 100000;
  uint64_t small_entities = 10000;
  uint64_t large_entities = 1000000;
  uint64_t bounded_partitions = 100;
  std::string ratios_out;
};
extern Config g_config;

// Prints "partkv-query-bench: error: <what>" to stderr and exits with status 1.
[[noreturn]] void Die(const std::string& what);

// One store with one table (kTableName) of kPartitions physical partitions, in a temporary
// directory; dies when it cannot be created.
struct BenchStore {
  TempDir dir{"partkv-query-bench"};
  std::optional<Store> store;
  std::optional<Table> table;
  uint64_t entities = 0;

  BenchStore();
  rocksdb::DB* db() const { return FrontAccess::Of(*store).db(); }
  engine::SharedTable& data() const { return FrontAccess::Of(*table).data(); }
  // The physical partition of `pk`: a key prefix in a shared column family.
  const engine::PhysicalPartition& PartOf(std::string_view pk) const {
    return data().partitions()[data().PartitionIndexOf(pk)];
  }
};

// "L0 a, L1 b, ... SST files" summed over the table's physical partitions (non-empty levels
// only), or "no SST files".
std::string LsmShape(const BenchStore& s);

// Writes `n` entities under the one PartitionKey kSinglePartitionKey, in RowKey order, then
// flushes and waits for the compactions to settle.
void PopulateSinglePartition(BenchStore* s, uint64_t n);

// Writes `n` entities of the common layout (n / 100 PartitionKeys), batches in a scrambled order,
// then flushes and waits for the compactions to settle.
void PopulateLayout(BenchStore* s, uint64_t n);

// A table for key-bounded queries, with the PartitionKeys the queries target: spread over the
// whole key space, the same number in every table, so both tables' working sets fit the cache
// and only the table's size differs.
struct BoundedFixture {
  BenchStore s;
  std::vector<uint64_t> targets;  // PartitionKey indexes
  struct RawRange {
    std::string lower, upper;
    rocksdb::ColumnFamilyHandle* cf;
  };
  std::vector<RawRange> raw;
  std::vector<Query> queries;
};

// Populates `f` with `n` entities (PopulateLayout) and derives g_config.bounded_partitions
// targets: for each, a query of its 100 rows and the encoded key range partkv reads for it.
void BuildBounded(BoundedFixture* f, uint64_t n);

struct Fixtures {
  BenchStore single;  // scan_entities entities of one PartitionKey
  BenchStore wide;    // scan_entities entities of scan_entities / 100 PartitionKeys
  BoundedFixture small, large;
};
extern Fixtures* g_fixtures;

// The benchmark's own configuration lines (fixtures, their LSM shapes, baseline, timing, rounds).
std::vector<std::pair<std::string, std::string>> FixtureFacts(const Fixtures& f);

}  // namespace partkv::bench::query_bench

#endif  // PARTKV_BENCH_QUERY_BENCH_FIXTURE_H_
