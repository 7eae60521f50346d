// Creating a store so that a crash at any moment leaves either no store or a whole one.
//
// A store is created in place, in its own directory: that directory may be a mount point, or sit
// in a directory the application cannot write, so building the store elsewhere and renaming it
// into place is not an option. Instead, before anything else is written, a marker file
// (kCreationMarker) is created in the empty directory and locked with flock(2); it is removed
// once the store is complete and synced, before Store::Open returns it. Hence:
//   - a directory holding the marker was empty when a creation began and no Open has returned a
//     store from it: everything else in it was written by that creation, and nothing was ever
//     acknowledged in it;
//   - a store that any caller ever held never holds the marker.
// The next Open of a directory whose marker is not locked (its creator died) removes what the
// interrupted creation left and creates the store again. It removes only files named the way
// RocksDB names its files; a directory holding anything else is refused and left alone. A marker
// locked by another process means that process is creating the store right now: Busy.
//
// Not thread-safe; one StoreCreation belongs to one Store::Open call.

#ifndef PARTKV_ENGINE_LOCAL_STORE_CREATION_H_
#define PARTKV_ENGINE_LOCAL_STORE_CREATION_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "partkv/result.h"

namespace partkv::engine {

// The marker of an unfinished creation. Persisted name: never change it (docs/format.md).
inline constexpr char kCreationMarker[] = "PARTKV-CREATING";

// True when the directory `path` holds the marker of an unfinished creation.
bool HasCreationMarker(const std::string& path);

// True for the names RocksDB gives the files of a database directory (CURRENT, MANIFEST-000001,
// 000004.log, ...) and for the info log (LOG, LOG.old).
bool IsDatabaseFileName(std::string_view name);

class StoreCreation {
 public:
  // Claims `path` — missing, empty, or holding an unfinished creation — for a new store: creates
  // the directory if missing, creates and locks the marker, removes what an interrupted creation
  // left, and syncs the directory. Returns null when a store appeared at `path` meanwhile (another
  // process created it): the caller opens that one instead.
  // Busy: another process is creating a store at `path`. InvalidArgument: the directory holds an
  // unfinished creation and files RocksDB did not write (left untouched). IOError: the file
  // system refused.
  static Result<std::unique_ptr<StoreCreation>> Begin(const std::string& path);

  // Releases the lock; a marker not committed stays, for the next Open to create the store again.
  ~StoreCreation();
  StoreCreation(const StoreCreation&) = delete;
  StoreCreation& operator=(const StoreCreation&) = delete;

  // REQUIRES: the store at `path` is complete and synced. Removes the marker and syncs the
  // directory (and its parent, when Begin created it), so the store outlives a power loss.
  Status Commit();

 private:
  StoreCreation(std::string path, int marker_fd, bool created_dir)
      : path_(std::move(path)), marker_fd_(marker_fd), created_dir_(created_dir) {}

  std::string path_;
  int marker_fd_;  // holds the flock
  bool created_dir_;
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_STORE_CREATION_H_
