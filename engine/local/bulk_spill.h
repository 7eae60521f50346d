// The records of a bulk write (partkv/bulk_writer.h) between validation and writing, and the
// spill file that holds rows on disk when a bulk write validates its whole input before writing
// any of it (engine/local/bulk_stage.h).
//
//   record = sealed_row line:varint64
//
// `sealed_row` is what RowSealer::Seal made of the row (engine/local/row_sealer.h: keys, size,
// cost, encoded properties and a seal), so the write neither parses, checks nor encodes the row
// again; `line` is the row's 1-based input line when it came from JSON Lines, else 0, for the
// messages of the write. A damaged record fails the seal's check: Corruption, never a bad row
// written. The format lives only as long as one bulk write (the sealer's seed dies with it): it is
// never persisted anywhere.
//
// The spill file is created in a temporary directory and unlinked at once, so it vanishes with
// the process however the process ends.
//
// Thread-safety: a SpillFile is used by one thread at a time.

#ifndef PARTKV_ENGINE_LOCAL_BULK_SPILL_H_
#define PARTKV_ENGINE_LOCAL_BULK_SPILL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/local/row_sealer.h"
#include "partkv/entity.h"
#include "partkv/result.h"

namespace partkv::engine {

// One record as read back; the row's views point into the bytes it was read from.
struct SpillRecord {
  SealedRow row;
  uint64_t line = 0;  // 1-based input line; 0 for a row that came from no line
};

// Seals `entity` with `sealer` and appends its record to *out. On failure (the entity breaks the
// table's limits or its key scheme) returns the reason and leaves *out as it was.
Status AppendRecord(const RowSealer& sealer, const Entity& entity, uint64_t line, std::string* out);

// Reads the record at the start of `data` into *record. False when `data` holds only the
// beginning of one (read more); Corruption when it is damaged or was not sealed by `sealer`.
// record->row.bytes() plus the line's varint is how much of `data` it takes: RecordSize().
Result<bool> ParseRecord(const RowSealer& sealer, std::string_view data, SpillRecord* record);
size_t RecordSize(const SpillRecord& record);

// An unlinked temporary file that only grows: appended at its end, read anywhere.
class SpillFile {
 public:
  // A new, already unlinked file in `directory`, or when it is empty in $TMPDIR (else /tmp).
  static Result<SpillFile> Create(const std::string& directory);
  SpillFile(SpillFile&& other) noexcept;
  SpillFile& operator=(SpillFile&&) = delete;
  SpillFile(const SpillFile&) = delete;
  ~SpillFile();

  // Appends `bytes` at the end. IOError (naming the directory) when the disk is full.
  Status Append(std::string_view bytes);
  // Appends up to `n` bytes read at `offset` to *out: fewer only where the file ends.
  Status ReadAt(uint64_t offset, size_t n, std::string* out) const;

  uint64_t size() const { return size_; }
  const std::string& directory() const { return directory_; }

 private:
  SpillFile(int fd, std::string directory) : fd_(fd), directory_(std::move(directory)) {}

  int fd_;
  std::string directory_;
  uint64_t size_ = 0;
};

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_LOCAL_BULK_SPILL_H_
