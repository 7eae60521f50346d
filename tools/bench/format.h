// Number formatting shared by the terminal table, the CSV and the HTML report: short, human
// forms with their unit ("152 k/s", "1.2 ms", "41.3 MiB", "0.68×"), and plain machine forms.

#ifndef PARTKV_TOOLS_BENCH_FORMAT_H_
#define PARTKV_TOOLS_BENCH_FORMAT_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace partkv::compare {

std::string Rate(double per_second);        // "950/s", "15.2 k/s", "1.25 M/s"
std::string Latency(double micros);         // "85 µs", "1.2 ms", "340 ms", "2.4 s"
std::string Duration(double seconds);       // "0.28 s", "33.6 s", "4 min 10 s", "2.1 h"
std::string Bytes(uint64_t bytes);          // "812 KiB", "41.3 MiB", "1.20 GiB"
std::string Ratio(double r);                // "0.68×", "12×"
std::string Share(double fraction);         // "62.1 %", "0.52 %", "0 %"
std::string Fixed(double v, int decimals);  // "3.42"
std::string Grouped(uint64_t v);            // "200,000"

// Eight-level block sparkline of `values` scaled to their maximum: "▂▂▇▁█▃".
std::string Sparkline(const std::vector<uint64_t>& values);

// The calling thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID): unlike wall time, it
// leaves out the time other processes of a shared machine take from this one.
double ThreadCpuSeconds();

// Wall seconds from `start` to now (steady clock).
double SecondsSince(std::chrono::steady_clock::time_point start);

// Columns a UTF-8 string occupies on a terminal (one per code point).
size_t DisplayWidth(std::string_view utf8);

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_FORMAT_H_
