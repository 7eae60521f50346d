// Facts about the machine and the process that the programs print beside their figures: lines
// of /proc files, the process's resident memory, and the shape of an LSM tree as text. Shared by
// partkv-bench (tools/bench/) and the micro-benchmarks (bench/). Thread-safe: pure functions and
// reads of /proc.

#ifndef PARTKV_TOOLS_COMMON_MACHINE_H_
#define PARTKV_TOOLS_COMMON_MACHINE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace partkv::tools {

// The value on the first line of `file` that starts with `prefix`, for "name : value" files such
// as /proc/cpuinfo and /proc/meminfo: the text after the line's first colon without its leading
// blanks ("model name\t: AMD EPYC" -> "AMD EPYC"; empty when only blanks follow the colon), the
// whole line when it has no colon, and "unknown" when no line starts with `prefix` or `file`
// cannot be read.
std::string FirstLineWith(const char* file, std::string_view prefix);

// A field of /proc/self/status in KiB ("VmHWM" for the process's peak resident memory, "VmRSS"
// for the current); 0 when the file or the field cannot be read.
uint64_t ProcStatusKiB(std::string_view field);

// "L0 2, L1 16 SST files" (levels without files left out), or "no SST files": the LSM shape of a
// configuration block, from the SST files at each level (index = level).
std::string FormatLsmShape(const std::vector<uint64_t>& files_per_level);

}  // namespace partkv::tools

#endif  // PARTKV_TOOLS_COMMON_MACHINE_H_
