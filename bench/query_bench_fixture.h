// partkv-query-bench's data and stores (the program is described in query_bench_main.cc): its
// configuration and its fixtures, each a store of its own (its own block cache) holding one table
// of kPartitions physical partitions, flushed and left to settle its compactions before anything
// reads it. The scan and bounded fixtures are populated in batches of 100; the two larger ones
// (scan threads, hot set) with a BulkWriter, in a store of their own, which is then copied (a
// RocksDB checkpoint: the same SST files, hard-linked) into the stores measured, each opened with
// the StoreOptions its claim needs — options are fixed at open, and one directory is open once.
//
// The benchmarks reach the configuration and the fixtures through g_config and g_fixtures, as
// Google Benchmark calls them with nothing but their State; Main sets both before registering any.

#ifndef PARTKV_BENCH_QUERY_BENCH_FIXTURE_H_
#define PARTKV_BENCH_QUERY_BENCH_FIXTURE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/front/front_access.h"
#include "bench/bench_internal.h"
#include "engine/local/store_state.h"
#include "engine/local/table_handle.h"
#include "partkv/store.h"
#include "rocksdb/db.h"

namespace partkv::bench::query_bench {

inline constexpr uint32_t kPartitions = 16;
inline constexpr char kTableName[] = "Bench";
// The one PartitionKey of the partition-scan fixture.
inline constexpr char kSinglePartitionKey[] = "device-00000";
// The selective filter of the scan-threads claim: a property comparison (no key condition), so
// every physical partition is read whole. "Count" is uniform over 0..99,999: about 0.5% match.
// The bound is kept twice, as text and as a number (the expected matches are counted with it);
// a run that sees another count fails, so the two cannot drift apart unnoticed.
inline constexpr char kParallelFilter[] = "Count lt 500";
inline constexpr int32_t kParallelCountBound = 500;

// The program's phases (--phases); each builds its fixtures and runs its pairs only when chosen.
inline constexpr char kPhaseScan[] = "scan";          // partition and table scans vs raw
inline constexpr char kPhaseBounded[] = "bounded";    // key-bounded query, large vs small table
inline constexpr char kPhaseParallel[] = "parallel";  // selective filter, 2 vs 1 scan threads
inline constexpr char kPhaseHotSet[] = "hotset";      // point reads with a scan beside vs alone

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
  // The scan-threads claim: entities of its table (about 100 bytes each).
  uint64_t parallel_entities = 1000000;
  // The hot-set claim: entities of its table (about 1 KiB each), its hot keys, and the memory
  // budget of its store (StoreOptions::memory_budget_bytes, which bounds the block cache).
  uint64_t hot_table_entities = 250000;
  uint64_t hot_keys = 3000;
  size_t hot_memory_budget_mib = 32;
  std::vector<std::string> phases = {kPhaseScan, kPhaseBounded, kPhaseParallel, kPhaseHotSet};
  std::string ratios_out;

  bool Runs(std::string_view phase) const;
};
extern Config g_config;

// One store with one table (kTableName) of kPartitions physical partitions, in a temporary
// directory; dies when it cannot be created.
struct BenchStore {
  TempDir dir{"partkv-query-bench"};
  std::optional<Store> store;
  std::optional<Table> table;
  uint64_t entities = 0;

  // A new store, opened with `options`, and its table.
  explicit BenchStore(const StoreOptions& options = {});
  // A copy of `from`'s store as it is now (a RocksDB checkpoint: its SST files hard-linked, so
  // both read the same bytes), opened with `options`; its table is `from`'s.
  BenchStore(const BenchStore& from, const StoreOptions& options);
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

// Entity n of the scan-threads table: the common layout's keys (PartitionKeyOf(n / 100),
// RowKeyOf(n)) and four small properties, "Count" (uniform over 0..99,999), "Reading" (Double),
// "Site" and "State" (Strings of 9 and 4 letters): about 100 bytes stored.
Entity MakeSmallEntity(uint64_t n);
// Entity n of the hot-set table: the same keys, "Count", and "Payload", kWidePayloadBytes of
// pseudo-random Binary that no compression shrinks.
inline constexpr size_t kWidePayloadBytes = 1000;
Entity MakeWideEntity(uint64_t n);

// The scan-threads claim's table: `parallel_entities` small entities (MakeSmallEntity) over
// parallel_entities / 100 PartitionKeys, written once, then opened as two copies that differ only
// in StoreOptions::scan_threads (each with the default memory budget).
struct ParallelFixture {
  std::optional<BenchStore> one_thread, two_threads;
  uint64_t matching = 0;  // entities kParallelFilter matches
  double build_seconds = 0;
};

// Writes `n` entities (MakeSmallEntity) and opens the two copies.
void BuildParallel(ParallelFixture* f, uint64_t n);

// The hot-set claim's table: `hot_table_entities` entities of about 1 KiB (MakeWideEntity: an
// incompressible payload, so the SST files hold as many bytes as the data), in a store opened
// with a memory budget of hot_memory_budget_mib and scan_threads = 1, and its hot keys: a fixed
// scrambled sample of the table.
struct HotSetFixture {
  std::optional<BenchStore> s;
  std::vector<std::pair<std::string, std::string>> hot;  // (PartitionKey, RowKey)
  uint64_t sst_bytes = 0;
  // The block cache in use just after the store was opened, and after the hot set was read
  // (twice) with nothing else running: what the hot set costs the cache.
  uint64_t cache_before_bytes = 0, cache_hot_bytes = 0;
  double build_seconds = 0;
};

// Writes `n` entities (MakeWideEntity), opens the measured copy and reads the hot set into its
// block cache.
void BuildHotSet(HotSetFixture* f, uint64_t n);

// Reads every hot key of `f` once with Table::Get; dies on an error.
void ReadHotSet(const HotSetFixture& f);

// The block cache of `s` in use, in bytes (every column family shares the one cache).
uint64_t BlockCacheUsage(const BenchStore& s);

// Options of a store whose queries run on the calling thread only (scan_threads 1): its rates,
// timed by the benchmark thread's CPU, then count all the work a query does.
inline StoreOptions OneScanThread() {
  StoreOptions options;
  options.scan_threads = 1;
  return options;
}

struct Fixtures {
  BenchStore single;  // scan_entities entities of one PartitionKey
  // scan_entities entities of scan_entities / 100 PartitionKeys; read on one thread, as the
  // claims against the raw iterator are per-row costs (the scan-threads pair measures the
  // speed-up of more threads).
  BenchStore wide{OneScanThread()};
  BoundedFixture small, large;
  std::optional<ParallelFixture> parallel;  // built when the phase runs
  std::optional<HotSetFixture> hot;
};
extern Fixtures* g_fixtures;

// The benchmark's own configuration lines (fixtures, their LSM shapes, baseline, timing, rounds)
// of the phases that run.
std::vector<std::pair<std::string, std::string>> FixtureFacts(const Fixtures& f);

}  // namespace partkv::bench::query_bench

#endif  // PARTKV_BENCH_QUERY_BENCH_FIXTURE_H_
