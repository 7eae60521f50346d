// LineSealer: blocks of JSON Lines parsed, validated and sealed on worker threads and taken back
// in input order — the parallel front of BulkWriter::AddJsonLines (partkv/bulk_writer.h).
//
// The caller hands in blocks of whole lines (Submit) and takes them back, oldest first, once the
// workers are done with them (Oldest, then Pop). A block comes back as the records
// (engine/local/bulk_spill.h) of its lines up to its first bad line, and that line's error,
// numbered. Blank lines (nothing but spaces, tabs and a carriage return) are skipped; a line may
// end in
// "\n" or "\r\n". Slots are reused, buffers and all, so a running pool allocates nothing per
// block.
//
// Thread-safety: Submit, Oldest and Pop are called from one thread (the pool's owner); the
// workers only touch the slots they were given. REQUIRES: the RowSealer outlives the pool.

#ifndef PARTKV_ENGINE_LOCAL_BULK_LINES_H_
#define PARTKV_ENGINE_LOCAL_BULK_LINES_H_

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/local/row_sealer.h"
#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "partkv/json.h"
#include "partkv/status.h"

namespace partkv::engine {

// One block of lines and what sealing it gave.
struct LineBlock {
  std::string text;
  uint64_t first_line = 0;  // 1-based number of the block's first line
  std::string records;      // the records of the good lines before the first bad one
  uint64_t rows = 0;        // how many records
  uint64_t bad_line = 0;    // the first bad line; 0 when every line is good
  Status error;             // its error, with "line N: " before the message
  size_t taken = 0;         // bytes of `records` the owner has consumed (for resuming)
  // Sealed: the owner may take the block. Guarded by its LineSealer's mu_ (a field of an element
  // of a vector, which clang's annotations cannot name).
  bool done = false;
};

class LineSealer {
 public:
  LineSealer(const RowSealer& sealer, JsonReadOptions read_options, size_t workers);
  ~LineSealer();
  LineSealer(const LineSealer&) = delete;
  LineSealer& operator=(const LineSealer&) = delete;

  // Whether every slot holds a block not yet popped.
  bool full() const { return submitted_ - popped_ == slots_.size(); }
  bool empty() const { return submitted_ == popped_; }

  // Hands a block of whole lines, the first numbered `first_line`, to the workers.
  // REQUIRES: !full().
  void Submit(std::string_view text, uint64_t first_line) PARTKV_EXCLUDES(mu_);
  // The oldest block not popped, once sealed. REQUIRES: !empty().
  LineBlock& Oldest() PARTKV_EXCLUDES(mu_);
  // Frees the oldest block's slot. REQUIRES: !empty().
  void Pop() { ++popped_; }

 private:
  LineBlock& slot(uint64_t seq) { return slots_[seq % slots_.size()]; }
  void Work() PARTKV_EXCLUDES(mu_);
  void Seal(LineBlock& block) const;

  const RowSealer& sealer_;
  const JsonReadOptions read_options_;
  std::vector<LineBlock> slots_;
  uint64_t submitted_ = 0, popped_ = 0;  // the owner's
  std::vector<std::thread> threads_;
  port::Mutex mu_;
  port::CondVar work_{&mu_};  // to the workers: a block is queued, or they stop
  port::CondVar done_{&mu_};  // to the owner: a block is sealed
  std::deque<uint64_t> queue_ PARTKV_GUARDED_BY(mu_);  // slots handed in, not yet taken
  bool stop_ PARTKV_GUARDED_BY(mu_) = false;
};

// The number of lines in `block`: its newlines, plus one for a last line without one.
uint64_t CountLines(std::string_view block);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_BULK_LINES_H_
