#include "bench/remote/phase_meter.h"

#include <sys/resource.h>

#include <cstdio>

#include "bench/bench_common.h"

namespace partkv::bench::remote {

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void PhaseMeter::Start() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  bool reset = f != nullptr && std::fputs("5", f) >= 0;
  if (f != nullptr && std::fclose(f) != 0) reset = false;
  reset_ok_ = reset_ok_ && reset;
  cpu_start_ = ProcessCpuSeconds();
  wall_start_ = std::chrono::steady_clock::now();
}

PhaseCost PhaseMeter::Stop() const {
  PhaseCost cost;
  cost.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
  cost.cpu_seconds = ProcessCpuSeconds() - cpu_start_;
  cost.peak_rss_mib = static_cast<double>(ProcStatusKiB("VmHWM")) / 1024;
  return cost;
}

}  // namespace partkv::bench::remote
