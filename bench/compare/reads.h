// Read costs on disk, per strategy: what it costs to get data back out under each key design.
//
//   point read   Table::GetByAttributes(date, deviceId, orderId, time): one Get when the key
//                is computable from the attributes; up to N Gets for random-suffix (the suffix
//                was drawn at write time, so every shard may hold the row).
//   day          every entity of one date: one partition (date), the N shards merged by
//                Table::QueryShards (suffixed dates), or a filtered scan of the whole table
//                (keys that do not start from the date).
//   device-day   every entity of one deviceId on one date: the strategy's best plan (PlanRead).
//
// Samples are drawn from the workload with a fixed seed, the same for every strategy; each
// sample's result is checked against the workload (count, and the orderId of a point read).
// Pages are 1,000 entities; continuation tokens are followed to the end. Every strategy's reads
// start with an untimed warm-up (a day and a few point reads), since all tables share one block
// cache. Latencies are wall time of the whole read (all its pages).

#ifndef PARTKV_BENCH_COMPARE_READS_H_
#define PARTKV_BENCH_COMPARE_READS_H_

#include <cstdint>
#include <functional>

#include "bench/compare/results.h"
#include "bench/compare/strategies.h"
#include "bench/compare/workload.h"
#include "partkv/table.h"

namespace partkv::compare {

struct ReadSamples {
  uint32_t point_reads = 500;
  uint32_t device_day_reads = 12;
  uint32_t day_reads = 5;  // distinct days, at most the workload's
  uint32_t extra_day_reads = 0;
  uint64_t seed = 1;
};

// Measures the three reads on `table` (written with `spec`'s strategy) into out->point, out->day
// and out->device_day. `tick(fraction)` is called as the work proceeds. Fails on a store error;
// mismatches against the workload are counted in ReadStats::mismatches.
Status MeasureReads(const Table& table, const StrategySpec& spec, const Workload& workload,
                    const ReadSamples& samples, StrategyResult* out,
                    const std::function<void(double)>& tick);

// The nearest-rank percentile q (0..1] of `values` (sorted in place); 0 when empty.
double Percentile(std::vector<double>* values, double q);

}  // namespace partkv::compare

#endif  // PARTKV_BENCH_COMPARE_READS_H_
