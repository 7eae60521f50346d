// RunChild: runs a program as a child process and waits for it — the way the benchmarks measure
// a program in a process of its own (its peak RSS is then its own) or run themselves again with
// other flags. The child's stdout is inherited, captured whole into memory, or discarded; its
// stderr is always inherited, so its errors reach the terminal. A pipe, fork or exec that fails
// is fatal (Die); a child that fails is the caller's to judge, from ChildRun::exited_ok().
//
// Thread-safe as fork is: call it from a program's main thread.

#ifndef PARTKV_TOOLS_COMMON_CHILD_PROCESS_H_
#define PARTKV_TOOLS_COMMON_CHILD_PROCESS_H_

#include <string>
#include <vector>

namespace partkv::tools {

enum class ChildOutput { kInherit, kCapture, kDiscard };

struct ChildRun {
  int wait_status = 0;      // as waitpid reports it
  std::string output;       // the child's stdout, with ChildOutput::kCapture
  double seconds = 0;       // wall time from fork to exit
  double cpu_seconds = 0;   // the child's user + system time
  double peak_rss_mib = 0;  // the child's peak resident memory (ru_maxrss)

  bool exited_ok() const;  // exited, with status 0
};

// Runs `path` with `argv` (argv[0] included: the name the child sees). "/proc/self/exe" runs
// this program again.
ChildRun RunChild(const std::string& path, const std::vector<std::string>& argv,
                  ChildOutput output);

}  // namespace partkv::tools

#endif  // PARTKV_TOOLS_COMMON_CHILD_PROCESS_H_
