// What the tests of `partkv copy` share: the program run as a child process that a test may
// SIGKILL at a point of its choosing (KillableRun), the command's --json report read back
// (CopyJson), and the rows of a store counted or listed from the test process (CountRows,
// ExportCanonical).
//
// Kill points are observable events, never sleeps: the checkpoint file being replaced for the
// k-th time (Checkpoint::Save renames a temporary file over it, which inotify reports as
// IN_MOVED_TO), or a random delay measured from the moment the child was started — a timer that
// picks where the kill lands, not one that waits for something to have happened.

#ifndef PARTKV_TESTS_TOOLS_COPY_COPY_TEST_SUPPORT_H_
#define PARTKV_TESTS_TOOLS_COPY_COPY_TEST_SUPPORT_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "partkv/result.h"

namespace partkv::testing {

// When a run is killed: after the checkpoint file has been replaced `events` times (0: not on
// events), after files named *.log in `store_dir` (a destination store's write-ahead log: a
// group or a batch written) were written to `store_writes` times, `delay` after the child
// started (nullopt: not on time), or once `condition` holds (an observable state, such as what
// the destination holds, checked every `poll`); the first that comes. None: the run is left to
// finish.
struct KillPlan {
  int events = 0;
  std::string store_dir;  // "": not watched
  int store_writes = 0;
  std::optional<std::chrono::microseconds> delay;
  std::function<bool()> condition;
  std::chrono::milliseconds poll{5};
};

struct KilledRun {
  bool killed = false;        // the child died of our SIGKILL
  int exit_code = -1;         // its exit status when it was not killed
  int checkpoint_events = 0;  // the checkpoint's replacements seen while it ran
  int store_writes = 0;       // writes to KillPlan::store_dir's log files seen while it ran
  std::chrono::microseconds elapsed{0};  // from its start to its end
  std::string out, err;
};

// Runs `partkv args...` in `cwd`, stdout and stderr to files there; watches the directory of
// `checkpoint` (which must exist) for the file's replacements, and KillPlan::store_dir when
// given, and kills the child with SIGKILL as `plan` says. The child dies with the test process
// (PR_SET_PDEATHSIG).
KilledRun RunKillable(const std::vector<std::string>& args, const std::string& cwd,
                      const std::string& checkpoint, const KillPlan& plan);

// One table's entry of `partkv copy --json` ({"tables":[{...}]}), or an error naming the output
// when it is not one.
Result<nlohmann::json> CopyJson(const std::string& out);

// The entities of `table` in the store at `location` (a directory or a connection string):
// 0 when the store (or its creation was cut short) or the table does not exist.
Result<uint64_t> CountRows(const std::string& location, const std::string& table);

// `partkv export` output parsed line by line, each entity without its ETag and Timestamp (and
// their annotations), dumped as canonical JSON (members sorted), the whole sorted.
std::vector<std::string> ExportCanonical(const std::string& export_output);

// The connection string of the development account at http://127.0.0.1:PORT (a FaultProxy in
// front of a server).
std::string LoopbackConnectionString(int port);

}  // namespace partkv::testing

#endif  // PARTKV_TESTS_TOOLS_COPY_COPY_TEST_SUPPORT_H_
