// The checkpoint file of a resumable copy (partkv/copy.h "Resuming"; docs/copy.md "Checkpoints").
//
// One JSON document: what copy it belongs to (the identity, the two tables' names, the options
// that decide what is written, the source's layout: a local source's physical partitions or a
// remote source's PartitionKey ranges) and, per unit, whether it is done or the last source key
// the destination acknowledged. Save() writes it to a temporary file beside it and renames that
// over it, so a kill at any instant leaves either the old checkpoint or the new one, whole.
//
// Thread-safety: every method may be called from any thread; Save() serialises the writes.

#ifndef PARTKV_API_FRONT_COPY_CHECKPOINT_H_
#define PARTKV_API_FRONT_COPY_CHECKPOINT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "partkv/result.h"

namespace partkv::copy {

// Where a copy reads its source: a local table's physical partitions, or PartitionKey ranges
// [lower, upper) of a remote one ("" for an unbounded end).
struct SourceLayout {
  bool local = true;
  uint32_t partitions = 0;
  std::vector<std::pair<std::string, std::string>> ranges;
  size_t units() const { return local ? partitions : ranges.size(); }
};

struct UnitState {
  bool done = false;
  // The last source key acknowledged, when any was.
  std::optional<std::pair<std::string, std::string>> after;
  // The source returned the unit's keys out of order (Cosmos DB for Table does not sort): no key
  // says how far it got, so a resumed copy reads the unit again from its start and looks every
  // entity up in the destination before sending it.
  bool unordered = false;
};

// What identifies one copy: a checkpoint of another is refused.
struct CopyIdentity {
  std::string identity;  // CopyOptions::identity
  std::string from_table;
  std::string to_table;
  std::string options;  // CopyMapper::Describe()
};

class Checkpoint {
 public:
  // No checkpoint: Save() does nothing.
  Checkpoint() = default;

  // Reads the checkpoint at `path` for a resumed copy: NotFound when there is none;
  // InvalidArgument naming the file and what differs when it belongs to another copy, or what is
  // wrong when it is not a checkpoint.
  static Result<std::unique_ptr<Checkpoint>> Resume(const std::string& path,
                                                    const CopyIdentity& identity);
  // Starts a checkpoint at `path` for a new copy: AlreadyExists when a file is there (a copy to
  // resume, or to delete before starting over). Nothing is written before the first Save().
  static Result<std::unique_ptr<Checkpoint>> Start(const std::string& path,
                                                   const CopyIdentity& identity,
                                                   SourceLayout layout, uint64_t window);

  const SourceLayout& layout() const { return layout_; }
  // The most rows per unit the copy that wrote the checkpoint could have sent unacknowledged
  // (its resume window; 0 when not recorded): a resumed copy looks up at least as many.
  uint64_t window() const { return window_; }
  // A resumed checkpoint's layout must be the source's: InvalidArgument naming both otherwise.
  Status CheckLocalLayout(uint32_t partitions) const;
  UnitState unit(size_t index) const;

  void Acknowledge(size_t unit, std::string partition_key, std::string row_key);
  void Done(size_t unit);
  void Unordered(size_t unit);
  // Writes the checkpoint (atomically; above). IOError naming the file when it cannot.
  Status Save();
  // Deletes the file once the copy has finished.
  Status Remove();
  const std::string& path() const { return path_; }

 private:
  std::string Serialise() const PARTKV_REQUIRES(mu_);

  std::string path_;
  CopyIdentity identity_;
  SourceLayout layout_;
  uint64_t window_ = 0;
  mutable port::Mutex mu_;
  std::vector<UnitState> units_ PARTKV_GUARDED_BY(mu_);
  bool active_ = false;                              // false: no checkpoint file is kept
  port::Mutex save_mu_ PARTKV_ACQUIRED_BEFORE(mu_);  // one Save at a time
};

}  // namespace partkv::copy

#endif  // PARTKV_API_FRONT_COPY_CHECKPOINT_H_
