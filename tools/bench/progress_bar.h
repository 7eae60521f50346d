// The progress bar of partkv-bench: one line on stderr, redrawn in place, shown only when stderr
// is a terminal (tools/common/progress.h draws the line and decides when):
//
//   [██████████▌         ]  52%  reading: hash-suffix(date,orderId,200)  ETA 48 s
//
// A sweep runs several comparisons; Scoped() maps each run's 0..1 onto its slice of the bar.

#ifndef PARTKV_TOOLS_BENCH_PROGRESS_BAR_H_
#define PARTKV_TOOLS_BENCH_PROGRESS_BAR_H_

#include <chrono>
#include <string>

#include "tools/bench/comparison.h"
#include "tools/common/progress.h"

namespace partkv::compare {

class ProgressBar : public ProgressSink {
 public:
  ProgressBar() : start_(std::chrono::steady_clock::now()) {}
  // Maps later Show() calls onto [begin, end) of the whole bar, labelled `prefix`.
  void Scope(double begin, double end, std::string prefix);
  void Show(double fraction, const std::string& what) override;
  void Clear() { line_.Clear(); }

 private:
  cli::Progress line_;
  std::chrono::steady_clock::time_point start_;
  double begin_ = 0, end_ = 1;
  std::string prefix_;
};

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_PROGRESS_BAR_H_
