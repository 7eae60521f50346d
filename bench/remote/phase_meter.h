// What one phase of the remote-client benchmark cost this process: wall time, CPU time of every
// thread (getrusage RUSAGE_SELF, user + system: the client's own work, libcurl's included) and
// the peak resident set during the phase. sdk_bench.mjs measures the Node process the same way
// (process.cpuUsage(), the same /proc files).
//
// The peak is the phase's own: Start() resets the kernel's high-water mark (writing "5" to
// /proc/self/clear_refs, Linux 4.0 and later) to the resident set of that moment, and Stop()
// reads VmHWM. Memory malloc kept from earlier phases counts, memory the phase grew by shows.
// When the reset is refused the peak is the process's so far, and reset_ok() says so.
//
// Not thread-safe: one meter, used by the thread that runs the phases.

#ifndef PARTKV_BENCH_REMOTE_PHASE_METER_H_
#define PARTKV_BENCH_REMOTE_PHASE_METER_H_

#include <chrono>

namespace partkv::bench::remote {

struct PhaseCost {
  double seconds = 0;
  double cpu_seconds = 0;
  double peak_rss_mib = 0;
};

class PhaseMeter {
 public:
  void Start();
  PhaseCost Stop() const;
  bool reset_ok() const { return reset_ok_; }

 private:
  std::chrono::steady_clock::time_point wall_start_;
  double cpu_start_ = 0;
  bool reset_ok_ = true;
};

// User + system CPU seconds of every thread of this process so far.
double ProcessCpuSeconds();

}  // namespace partkv::bench::remote

#endif  // PARTKV_BENCH_REMOTE_PHASE_METER_H_
