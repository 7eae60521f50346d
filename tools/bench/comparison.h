// The key-strategy comparison: every strategy writes the same data into its own table of one
// store on disk, and the same bytes are written to raw RocksDB as the baseline; then layout, reads
// and cloud limits are measured per strategy. The data is the built-in workload (workload.h) or
// the user's own (dataset.h); the strategies, the RowKey scheme and the reads are the built-in
// ones or the user's (--strategy, --row-key, --read).
//
// Steps, per strategy, in order:
//   1. plan the batches (strategies.h) and write them with Table::Submit, timed around each call;
//      write the same key/value bytes in the same batches to a raw RocksDB database configured
//      like the store (disk.h), timed the same way, interleaved with the partkv writes 16 batches
//      at a time (the side going first alternating), so both meet the same machine load;
//   2. after all strategies: flush, let background work settle, measure SST bytes and count the
//      entities in every physical partition on disk; the analyzer (partkv/analyzer.h) is fed the
//      same entities, and its per-partition counts must equal the ones on disk;
//   3. reads on disk (reads.h), the same samples for every strategy;
//   4. the throttled replay (throttle_replay.h): the busiest day offered under each cloud profile
//      with throttling emulation on, on an injected clock;
//   5. with a target endpoint (target.h): the same batches at the replay's pace and the same
//      reads against it, with the 503/429 answers and retry waits it met.
//
// Replay time. The data spans its timeline's real time (days, for the built-in workload), far
// too slow to reach any partition limit. The replay compresses that timeline linearly so that
// the whole data averages `replay_rate` entities/s, keeping its shape (diurnal curve, bursts).
// Batching (a key's batch waits at most 1 s of replay time) and the throttled replay both use
// that timeline.
//
// Every count is checked against the data as the run goes (written = planned = on disk =
// analyzed; reads return exactly the data's entities); a mismatch fails the run with a message
// naming the strategy and the count. Two entities that a strategy and the RowKey scheme give the
// same keys end the run with InvalidArgument naming the entity's line.

#ifndef PARTKV_TOOLS_BENCH_COMPARISON_H_
#define PARTKV_TOOLS_BENCH_COMPARISON_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "partkv/result.h"
#include "tools/bench/dataset.h"
#include "tools/bench/reads.h"
#include "tools/bench/results.h"
#include "tools/bench/strategies.h"
#include "tools/bench/target.h"
#include "tools/bench/workload.h"

namespace partkv::compare {

struct ComparisonOptions {
  // The built-in workload, used when `data` is null.
  WorkloadOptions workload;
  // The user's data; it must keep every attribute the strategies, the RowKey scheme and the
  // reads name (DataSetOptions::keep).
  std::shared_ptr<const DataSet> data;
  // Empty: DefaultStrategies().
  std::vector<StrategySpec> strategies;
  // The RowKey scheme; unset: RowKeyScheme() (the built-in workload's orderId).
  std::optional<KeyStrategy> row_key;
  // Empty: DefaultReads().
  std::vector<ReadSpec> reads;
  // The attribute that ordered the user's data's timeline (DataSetOptions::time_attribute), for
  // the reports; "" = file order.
  std::string time_attribute;
  uint32_t physical_partitions = 16;
  // Entities/s the whole data averages in the replay.
  double replay_rate = 5000;
  // A directory the run may fill (stores, raw databases); it must exist. The caller removes it.
  std::string work_dir;
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

// Each entity's replay time (see above), microseconds from the data's start.
std::vector<int64_t> ReplayTimes(const DataSet& data, double replay_rate);

// The busiest hour and day of the data's timeline (UTC): [begin, end) entity ranges, and where
// they start (microseconds since the Unix epoch).
struct Peaks {
  size_t hour_begin = 0, hour_end = 0;
  int64_t hour_start_micros = 0;
  size_t day_begin = 0, day_end = 0;
  int64_t day_start_micros = 0;
  uint32_t days = 0;  // calendar days from the first entity's to the last's
};
Peaks FindPeaks(const DataSet& data);

// The machine and build facts every report prints: cpu, cores, memory, compiler, RocksDB, build
// type, date.
std::vector<std::pair<std::string, std::string>> MachineFacts();

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_COMPARISON_H_
