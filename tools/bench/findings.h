// What a comparison's numbers say, as short sentences: which strategy wins each measure, by how
// much, and what that strategy pays elsewhere. Derived from the numbers alone (no fixed text
// about any strategy), so they stay true for any workload, seed or machine.

#ifndef PARTKV_TOOLS_BENCH_FINDINGS_H_
#define PARTKV_TOOLS_BENCH_FINDINGS_H_

#include <string>
#include <vector>

#include "tools/bench/results.h"

namespace partkv::compare {

struct Finding {
  std::string measure;  // "fastest write", "least skew", ...
  std::string winner;   // the strategy's label
  std::string detail;   // the numbers, and the winner's price
};

std::vector<Finding> Findings(const ComparisonResult& result);

// The read a sweep follows: the first read that is not a point read (the built-in workload's
// day read), else the first; null when there is none. And its name.
const ReadStats* SweepRead(const StrategyResult& r);
std::string SweepReadName(const ComparisonResult& run);

// The growth of the per-entity write cost and the per-page read cost (of SweepRead) from the
// smallest to the largest run of a sweep, per strategy.
struct SweepGrowth {
  std::string label;
  std::vector<double> write_micros_per_entity;  // one per run, wall time
  std::vector<double> day_micros_per_page;      // one per run, wall time
  double write_growth = 0;                      // last / first
  double read_growth = 0;
  // The same costs in the measuring thread's CPU time, and the raw RocksDB write cost (wall):
  // together they say whether growth is partkv's work, RocksDB's, or waiting.
  double write_cpu_growth = 0;
  double read_cpu_growth = 0;
  double raw_write_growth = 0;
};
std::vector<SweepGrowth> Growth(const SweepResult& sweep);

// The sweep's target: per-entity write cost grows at most this much from 1x to 10x.
inline constexpr double kSweepWriteGrowthTarget = 1.5;

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_FINDINGS_H_
