// The exit statuses of the partkv command-line tool (docs/cli.md "Exit status"): one per kind of
// failure, chosen by what a script should do next, so that `partkv ...; case $? in ...` can tell
// a missing row from a stale ETag without reading the message.
//
// Header-only, so the CLI tests can check the mapping for codes no command can provoke yet
// (Throttled needs the cloud profiles' throttling).

#ifndef PARTKV_TOOLS_CLI_EXIT_CODES_H_
#define PARTKV_TOOLS_CLI_EXIT_CODES_H_

#include "partkv/status.h"

namespace partkv::cli {

// Part of the tool's interface: scripts test these numbers, so never renumber them.
inline constexpr int kExitOk = 0;
inline constexpr int kExitOther = 1;            // Corruption, IOError, Busy
inline constexpr int kExitInvalidArgument = 2;  // also every usage error
inline constexpr int kExitNotFound = 3;
inline constexpr int kExitAlreadyExists = 4;
inline constexpr int kExitPreconditionFailed = 5;  // an ETag condition did not hold
inline constexpr int kExitThrottled = 6;
inline constexpr int kExitPermissionDenied = 7;  // the endpoint refused the key or the SAS
inline constexpr int kExitDiffers = 8;           // copy --verify: the two tables differ
inline constexpr int kExitTrimmed = 9;  // changes: retention removed the position asked for

inline int ExitCodeFor(Status::Code code) {
  switch (code) {
    case Status::Code::kOk:
      return kExitOk;
    case Status::Code::kInvalidArgument:
      return kExitInvalidArgument;
    case Status::Code::kNotFound:
      return kExitNotFound;
    case Status::Code::kAlreadyExists:
      return kExitAlreadyExists;
    case Status::Code::kPreconditionFailed:
      return kExitPreconditionFailed;
    case Status::Code::kThrottled:
      return kExitThrottled;
    case Status::Code::kPermissionDenied:
      return kExitPermissionDenied;
    case Status::Code::kTrimmed:
      return kExitTrimmed;
    case Status::Code::kCorruption:
    case Status::Code::kIOError:
    case Status::Code::kBusy:
      break;
  }
  return kExitOther;
}

}  // namespace partkv::cli

#endif  // PARTKV_TOOLS_CLI_EXIT_CODES_H_
