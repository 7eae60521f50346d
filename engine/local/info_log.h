// The store's info log: where RocksDB writes its warnings and errors (the `LOG` file of the store
// directory), through a logger that never fails a caller and never aborts.
//
// Why not RocksDB's default logger: once one of its writes fails (a full disk), every later one
// trips an assertion in WritableFileWriter, and Debian's librocksdb is built with assertions on.
// On a full disk RocksDB's error-recovery thread logs right after the failing write, so the
// default logger turned "No space left on device" into an aborted process (docs/errors.md, D13).
// This logger writes each line with one write(2) and drops the line when the write fails; the
// next line tries again. The file is bounded: past kInfoLogMaxBytes it is renamed to `LOG.old`
// (replacing the previous one) and a new `LOG` is started.
//
// Thread-safety: Logv may be called from any thread (RocksDB's background threads do).

#ifndef PARTKV_ENGINE_LOCAL_INFO_LOG_H_
#define PARTKV_ENGINE_LOCAL_INFO_LOG_H_

#include <cstddef>
#include <memory>
#include <string>

#include "rocksdb/env.h"

namespace partkv::engine {

inline constexpr size_t kInfoLogMaxBytes = size_t{1} << 20;

// A logger appending to `dir`/LOG at `level` and above. Never fails: when the file cannot be
// opened, lines are dropped until it can.
std::shared_ptr<rocksdb::Logger> NewInfoLog(const std::string& dir, rocksdb::InfoLogLevel level);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_INFO_LOG_H_
