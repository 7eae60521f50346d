// The key-strategy comparison: every strategy of DefaultStrategies() writes the same workload into
// its own table of one store on disk, and the same bytes are written to raw RocksDB as the
// baseline; then layout, reads and cloud limits are measured per strategy.
//
// Steps, per strategy, in order:
//   1. plan the batches (strategies.h) and write them with Table::Submit, timed around each call;
//      write the same key/value bytes in the same batches to a raw RocksDB database configured
//      like the store (disk.h), timed the same way, interleaved with the partkv writes 16 batches
//      at a time (the side going first alternating), so both meet the same machine load;
//   2. after all strategies: flush, let background work settle, measure SST bytes and count the
//      entities in every physical partition on disk; the analyzer (partkv/analyzer.h) is fed the
//      same entities, and its per-partition counts must equal the ones on disk;
//   3. reads on disk (reads.h): point reads by natural attributes, whole days, one device's day;
//   4. the throttled replay (throttle_replay.h): the burst day offered under each cloud profile
//      with throttling emulation on, on an injected clock;
//   5. with a target endpoint (target.h): the same batches at the replay's pace and the same
//      reads against it, with the 503/429 answers and retry waits it met.
//
// Replay time. The workload spans `days` of real time, far too slow to reach any partition
// limit. The replay compresses that timeline linearly so that the whole workload averages
// `replay_rate` entities/s, keeping its shape (diurnal curve, burst hour). Batching (a key's
// batch waits at most 1 s of replay time) and the throttled replay both use that timeline.
//
// Every count is checked against the workload as the run goes (written = planned = on disk =
// analyzed; reads return exactly the workload's entities); a mismatch fails the run with a
// message naming the strategy and the count.

#ifndef PARTKV_BENCH_COMPARE_COMPARISON_H_
#define PARTKV_BENCH_COMPARE_COMPARISON_H_

#include <cstdint>
#include <string>
#include <vector>

#include "bench/compare/results.h"
#include "bench/compare/target.h"
#include "bench/compare/workload.h"
#include "partkv/result.h"

namespace partkv::compare {

struct ComparisonOptions {
  WorkloadOptions workload;
  uint32_t physical_partitions = 16;
  // Entities/s the whole workload averages in the replay.
  double replay_rate = 5000;
  // A directory the run may fill (stores, raw databases); it must exist. The caller removes it.
  std::string work_dir;
  uint32_t point_reads = 500;
  uint32_t device_day_reads = 12;
  // Days read (distinct days, at most the workload's), plus this many more repeating them.
  uint32_t day_reads = 5;
  uint32_t extra_day_reads = 0;
  std::vector<std::string> throttle_profiles = {"azure-table", "dynamodb", "cosmos"};
  // Step 5 when target.location is set (target.h); an empty table_prefix gets a random one.
  TargetOptions target;
};

// Receives progress: the fraction done of the whole run and what it is doing now. Called often;
// implementations decide how often to draw.
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void Show(double fraction, const std::string& what) = 0;
};

// Runs the comparison. InvalidArgument for bad options; any failure of the store, of RocksDB or
// of a consistency check is returned with the strategy and step in its message.
Result<ComparisonResult> RunComparison(const ComparisonOptions& options,
                                       ProgressSink* progress = nullptr);

// The seed of the strategies' random draws (random-suffix) for a workload seed.
uint64_t KeySeed(uint64_t workload_seed);

// Each event's replay time (see above), microseconds from the workload's start.
std::vector<int64_t> ReplayTimes(const Workload& workload, double replay_rate);

// The machine and build facts every report prints: cpu, cores, memory, compiler, RocksDB, build
// type, date.
std::vector<std::pair<std::string, std::string>> MachineFacts();

}  // namespace partkv::compare

#endif  // PARTKV_BENCH_COMPARE_COMPARISON_H_
