// Kill points for the crash child: SIGKILL the process at its N-th file-system change.
//
// The crash child's executable defines the libc functions RocksDB, libstdc++ and partkv change
// files with (open for writing, write, pwrite, fsync, fdatasync, sync_file_range, ftruncate,
// fallocate, rename, link, unlink, remove, mkdir, rmdir); the dynamic linker binds the shared
// libraries' calls to these definitions first, and each forwards to libc's. While armed, every
// call is counted, and the N-th kills the process with SIGKILL before the change is made — the
// same state as a kill -9 that lands between two of the process's system calls. A test walks N
// over every change a step makes, so no point is left to chance and no timing is involved.
//
// Counting is process-wide (RocksDB's background threads count too) and lock-free.

#ifndef PARTKV_TESTS_CRASH_KILL_POINT_H_
#define PARTKV_TESTS_CRASH_KILL_POINT_H_

#include <cstdint>

namespace partkv::crash {

// Starts counting; the `kill_at`-th change (1-based) kills the process. 0 only counts.
void ArmKillPoint(uint64_t kill_at);
// Stops counting; returns the number of changes counted since ArmKillPoint.
uint64_t DisarmKillPoint();

}  // namespace partkv::crash

#endif  // PARTKV_TESTS_CRASH_KILL_POINT_H_
