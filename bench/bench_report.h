// The reporting shared by the Google Benchmark programs that claim ratios (partkv-store-bench,
// partkv-query-bench, partkv-shard-bench). Each registers every run as "<name>/round:<n>";
// CollectingReporter prints the runs as the console reporter does and keeps each one's rate by
// name and round; a ratio is the median over the rounds of rate(numerator) / rate(denominator),
// both measured in the same process, so that a noisy machine moves both sides alike.
// PrintRatioTable prints such ratios with their targets and returns them as JSON; ReportJson and
// FinishReport begin and end the document --ratios_out writes.
//
// Kept apart from bench_common.h so that only the programs built on Google Benchmark link it.
// Not thread-safe: Google Benchmark calls a reporter from the one thread that runs the benchmarks.

#ifndef PARTKV_BENCH_BENCH_REPORT_H_
#define PARTKV_BENCH_BENCH_REPORT_H_

#include <benchmark/benchmark.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nlohmann/json.hpp"

namespace partkv::bench {

// One run's rate as Google Benchmark reported it.
struct RunRate {
  // The run's items_per_second counter: per second of wall-clock time for a benchmark registered
  // with UseRealTime(), else per second of the benchmark thread's CPU time.
  double items_per_second = 0;
  // The run's accumulated wall-clock and CPU seconds (cpu_seconds > 0), to convert the rate from
  // one time basis to the other.
  double real_seconds = 0;
  double cpu_seconds = 0;
};

// Benchmark name (the run's name up to its first '/') -> round -> rate.
using RatesByName = std::map<std::string, std::map<int, RunRate>>;

// A console reporter that also collects each run's rate and each run's error.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override;

  // The rounds come from "/round:<n>" in the run's name (0 without one). Runs without an
  // items_per_second counter or without CPU time have no rate and are left out.
  const RatesByName& rates() const { return rates_; }
  // "<full run name>: <message>" of every run that failed (State::SkipWithError).
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  RatesByName rates_;
  std::vector<std::string> errors_;
};

// One line of a ratio table: ratio = items_per_second(numerator) / items_per_second(denominator)
// per round, the median over the rounds both ran.
struct RatioLine {
  std::string label;
  std::string numerator;  // benchmark names, as keys of CollectingReporter::rates()
  std::string denominator;
  // Items are queries: show each side as microseconds per query instead of rows per second.
  bool latency = false;
  std::optional<double> target;  // none: for context only
  bool at_most = false;          // the target is an upper bound (else a lower bound)
};

struct RatioReport {
  nlohmann::json ratios = nlohmann::json::array();  // one object per line that ran
  bool all_targets_met = true;
};

// Prints `lines` to stdout as a table (label, numerator, denominator, median ratio, target and
// "met"/"MISSED"), "not run" for a line whose numerator or denominator has no rate, and returns
// the lines that ran as the "ratios" array of --ratios_out. For a latency line with an upper
// bound (large / small, a rate ratio of small / large) the numerator column shows the
// denominator's latency, so the columns read in the order the label names them.
RatioReport PrintRatioTable(const std::vector<RatioLine>& lines, const RatesByName& rates);

// The --ratios_out document before its ratios: {"configuration": ConfigurationFacts() and then
// `facts`}.
nlohmann::json ReportJson(const std::vector<std::pair<std::string, std::string>>& facts);

// Ends a program's run: prints each of the reporter's errors to stderr as "<program>: error: ...",
// writes `report` to `ratios_out` unless it is empty (exiting with status 1 when it cannot), and
// returns the exit status: 0 when no run failed, else 1.
int FinishReport(std::string_view program, const CollectingReporter& reporter,
                 const nlohmann::json& report, const std::string& ratios_out);

// The end of a program whose results are all ratio lines: prints the table of `lines`, then
// FinishReport of ReportJson(facts) with the ratios and whether every target was met.
int FinishRatioReport(std::string_view program, const std::vector<RatioLine>& lines,
                      const CollectingReporter& reporter,
                      const std::vector<std::pair<std::string, std::string>>& facts,
                      const std::string& ratios_out);

}  // namespace partkv::bench

#endif  // PARTKV_BENCH_BENCH_REPORT_H_
