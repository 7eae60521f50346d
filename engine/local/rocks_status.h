// The one place where rocksdb::Status becomes partkv::Status.

#ifndef PARTKV_ENGINE_LOCAL_ROCKS_STATUS_H_
#define PARTKV_ENGINE_LOCAL_ROCKS_STATUS_H_

#include <string_view>

#include "partkv/status.h"
#include "rocksdb/status.h"

namespace partkv::engine {

// Maps a RocksDB status to the partkv code the caller should act on; `context` says what was
// being done ("open store /x", "write entity"). OK maps to OK.
Status FromRocks(const rocksdb::Status& s, std::string_view context);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_ROCKS_STATUS_H_
