// The spill file of `partkv import`: every validated row of the input, in input order, sealed
// (engine/row_sealer.h), so that the write pass neither keeps rows in memory nor parses, checks
// or encodes them again.
//
// The file is created in the temporary directory ($TMPDIR, else /tmp) and unlinked at once, so it
// vanishes with the process however the process ends. It holds about the rows' encoded size
// (typically 60-70% of their JSON).
//
//   record = sealed_row line:varint64
//
// `line` is the row's 1-based input line, for the messages of the write pass. The sealed row
// carries the keys, the row's size for the batch byte limit and the encoded properties; its seal
// makes a damaged record Corruption rather than a bad row written. The format lives only as long
// as one import: it is not persisted anywhere.

#ifndef PARTKV_TOOLS_CLI_IMPORT_SPILL_H_
#define PARTKV_TOOLS_CLI_IMPORT_SPILL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/row_sealer.h"
#include "partkv/entity.h"
#include "partkv/result.h"

namespace partkv::cli {

// One record as read back; the views are valid until the next SpillFile::Next.
struct SpillRecord {
  uint64_t line = 0;  // 1-based line of the input
  engine::SealedRow row;
};

// Seals `entity` with `sealer` and appends its record to *out. On failure (the entity breaks the
// table's limits) returns the reason and leaves *out as it was.
Status AppendSpillRecord(const engine::RowSealer& sealer, uint64_t line, const Entity& entity,
                         std::string* out);

class SpillFile {
 public:
  // A new, already unlinked file in the temporary directory.
  static Result<SpillFile> Create();
  SpillFile(SpillFile&& other) noexcept;
  SpillFile& operator=(SpillFile&&) = delete;
  SpillFile(const SpillFile&) = delete;
  ~SpillFile();

  // Appends encoded records. IOError (naming the directory) when the disk is full.
  Status Append(std::string_view records);
  // Reads from the first record on.
  Status Rewind();
  // The next record into *record (its views valid until the next call); false after the last
  // one. Corruption for a damaged file or a record not sealed by `sealer`.
  Result<bool> Next(const engine::RowSealer& sealer, SpillRecord* record);

  uint64_t bytes() const { return bytes_; }
  const std::string& directory() const { return directory_; }

 private:
  SpillFile(int fd, std::string directory) : fd_(fd), directory_(std::move(directory)) {}
  Status Refill();

  int fd_;
  std::string directory_;
  uint64_t bytes_ = 0;
  std::string buffer_;  // read side: unread data is buffer_[pos_, buffer_.size())
  size_t pos_ = 0;
  bool eof_ = false;
};

}  // namespace partkv::cli

#endif  // PARTKV_TOOLS_CLI_IMPORT_SPILL_H_
