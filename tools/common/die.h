// Die: how a program of this repository stops on an error it cannot go on from. It prints one
// line, "<program>: error: <what>", on stderr and exits with `status` (1 unless the caller says
// otherwise; a usage error is 2). The program's name is the one it was started as, so the line
// names the benchmark or tool that failed. Thread-safe, as fprintf and exit are.

#ifndef PARTKV_TOOLS_COMMON_DIE_H_
#define PARTKV_TOOLS_COMMON_DIE_H_

#include <string_view>

namespace partkv::tools {

[[noreturn]] void Die(std::string_view what, int status = 1);

}  // namespace partkv::tools

#endif  // PARTKV_TOOLS_COMMON_DIE_H_
