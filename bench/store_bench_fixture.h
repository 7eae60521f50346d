// partkv-store-bench's data and stores (the program is described in store_bench_main.cc): its
// configuration, the raw RocksDB baseline configured like a store, the pre-populated store the
// Get benchmarks read, and the empty tables the write benchmarks fill.
//
// The benchmarks reach the configuration and the read fixture through g_config and g_fixture, as
// Google Benchmark calls them with nothing but their State; Main sets both before registering any.

#ifndef PARTKV_BENCH_STORE_BENCH_FIXTURE_H_
#define PARTKV_BENCH_STORE_BENCH_FIXTURE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/front/front_access.h"
#include "bench/bench_internal.h"
#include "engine/local/table_handle.h"
#include "partkv/store.h"
#include "rocksdb/db.h"

namespace partkv::bench::store_bench {

inline constexpr uint32_t kPartitions = 16;
inline constexpr char kTableName[] = "Bench";

struct Config {
  int rounds = 5;
  uint64_t inserts = 200000;
  uint64_t batches = 2000;
  uint64_t read_entities = 200000;
  uint64_t gets = 200000;
  std::string ratios_out;
};
extern Config g_config;

// The options of a raw database configured like a store: the store's own DB and partition
// column-family options, with a fresh block cache and write-buffer manager of the same sizes.
struct RawOptions {
  rocksdb::DBOptions db;
  rocksdb::ColumnFamilyOptions partition;
  rocksdb::ColumnFamilyOptions default_cf;
};

// A raw RocksDB database with `partitions` column families configured like a store's; dies when
// it cannot be opened. Destroys its column-family handles and closes the database on destruction.
class RawDb {
 public:
  RawDb(const std::string& path, const RawOptions& options, uint32_t partitions);
  ~RawDb();
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  rocksdb::DB* db() const { return db_.get(); }
  rocksdb::ColumnFamilyHandle* partition(size_t i) const { return partitions_[i]; }

 private:
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* default_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> partitions_;
};

// A pre-populated store the Get benchmarks read, and the routing and raw options every benchmark
// derives from it.
struct Fixture {
  TempDir dir{"partkv-store-bench"};
  std::optional<Store> store;
  std::optional<Table> table;
  RawOptions raw_options;
  uint64_t flushed_entities = 0;
  // The keys the Get benchmarks look up, in a scrambled order: as partkv keys and as raw keys.
  std::vector<std::pair<std::string, std::string>> get_keys;
  struct RawKey {
    std::string key;
    rocksdb::ColumnFamilyHandle* cf;
  };
  std::vector<RawKey> raw_get_keys;

  size_t PartitionOf(std::string_view pk) const {
    return FrontAccess::Of(*table).data().PartitionIndexOf(pk);
  }
  engine::SharedTable& data() const { return FrontAccess::Of(*table).data(); }
};
extern Fixture* g_fixture;

// A fresh store in a temporary directory with one empty table (kTableName, kPartitions), for one
// write benchmark run.
struct FreshTable {
  TempDir dir{"partkv-store-bench-w"};
  std::optional<Store> store;
  std::optional<Table> table;
  FreshTable();
};

// Populates the read store of `f` with g_config.read_entities entities: 90% flushed to SST files,
// the last 10% left in the memtables, so Gets hit SSTs through the block cache as well as
// memtables. Then waits for the compactions to settle, picks the Get keys and warms the cache.
void BuildFixture(Fixture* f);

// The benchmark's own configuration lines (partitions, RocksDB options, sizes, rounds).
std::vector<std::pair<std::string, std::string>> FixtureFacts(const Fixture& f);

}  // namespace partkv::bench::store_bench

#endif  // PARTKV_BENCH_STORE_BENCH_FIXTURE_H_
