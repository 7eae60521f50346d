// Helpers shared by partkv's benchmarks: a self-removing temporary directory, the deterministic
// entity generator every benchmark writes and reads, a scrambled visiting order, the
// configuration block each benchmark prints before its numbers (so that a figure always comes
// with the machine and build it was measured on), and the median its ratios are taken as. Free
// of Google Benchmark, so plain programs (partkv-memory-bench) link it too; the Google Benchmark
// reporting is bench_report.h.
//
// The entity layout is one for all benchmarks, so their numbers describe the same data:
//   entity n  ->  PartitionKey "device-%05d" of n / 100, RowKey "%012d" of n,
//                 8 typed properties (String x2, Int32, Int64, Double, DateTime, Boolean, Guid)
//                 whose encoded value is about 200 bytes.
// Batch b holds entities 100*b .. 100*b+99, which share one PartitionKey, as a batch must.
//
// Everything here is deterministic: the same n always gives the same entity, byte for byte.
//
// Public API only: partkv-bench (compare/) links it with libpartkv. What the benchmarks of
// internals share beyond it (RocksDB properties of the store) is bench_internal.h.

#ifndef PARTKV_BENCH_BENCH_COMMON_H_
#define PARTKV_BENCH_BENCH_COMMON_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "partkv/batch.h"
#include "partkv/entity.h"
#include "partkv/table.h"
#include "tools/common/die.h"
#include "tools/common/machine.h"

namespace partkv::bench {

// Die and the machine facts are the programs' (tools/common/).
using tools::Die;
using tools::FirstLineWith;
using tools::FormatLsmShape;
using tools::ProcStatusKiB;

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on destruction.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "partkv-bench");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // A path inside the directory (not created).
  std::string Sub(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  std::string path_;
};

inline constexpr uint64_t kEntitiesPerPartitionKey = 100;

std::string PartitionKeyOf(uint64_t partition_key_index);  // "device-%05d"
std::string RowKeyOf(uint64_t row);                        // "%012d"

// Entity n of the layout above.
Entity MakeEntity(uint64_t n);
// The 100 inserts of batch b.
Batch MakeInsertBatch(uint64_t b);

// Sizes of entity n as stored: encoded key and encoded value bytes (the value with a typical
// header), and its property count.
struct EntitySize {
  size_t key_bytes = 0;
  size_t value_bytes = 0;
  size_t properties = 0;
};
EntitySize SizeOfEntity(uint64_t n);

// A deterministic permutation of 0..n-1 that scatters neighbours (i -> i * stride mod n with a
// stride coprime to n), so reads and single inserts do not walk the key space in order.
class Permutation {
 public:
  explicit Permutation(uint64_t n);
  uint64_t operator[](uint64_t i) const;
  uint64_t size() const { return n_; }

 private:
  uint64_t n_;
  uint64_t stride_;
};

// Prints the configuration block: `title`, then the machine and build (build type, compiler,
// RocksDB version, cores, CPU, date) and the entity shape, then the benchmark's own `extra`
// name/value lines.
void PrintConfiguration(std::FILE* out, std::string_view title,
                        const std::vector<std::pair<std::string, std::string>>& extra);

// The machine and build facts of PrintConfiguration, as name/value pairs (for JSON output).
std::vector<std::pair<std::string, std::string>> ConfigurationFacts();

// The median of `v` (the mean of the two middle values when their count is even); 0 when `v` is
// empty. Every benchmark's ratio is the median of its per-round ratios.
double Median(std::vector<double> v);

// The q-quantile of `v` (0 <= q <= 1) by the nearest-rank rule: the smallest value with at least
// q * v.size() values at or below it, so Quantile(v, 0.99) of 200 samples is the second largest;
// 0 when `v` is empty.
double Quantile(std::vector<double> v, double q);

// The calling thread's CPU time, user and system, in seconds (CLOCK_THREAD_CPUTIME_ID): what the
// benchmark's own thread spent, steadier than the wall clock when other processes share the cores.
double ThisThreadCpuSeconds();

}  // namespace partkv::bench

#endif  // PARTKV_BENCH_BENCH_COMMON_H_
