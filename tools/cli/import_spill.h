// The spill file of `partkv import`: every validated row of the input, in input order, in a
// compact binary form, so that the write pass neither keeps rows in memory nor parses JSON twice.
//
// The file is created in the temporary directory ($TMPDIR, else /tmp) and unlinked at once, so it
// vanishes with the process however the process ends. It holds about the rows' encoded size
// (typically 60-70% of their JSON).
//
//   record = line:varint64 size:varint64 pk_len:varint32 pk rk_len:varint32 rk
//            value_len:varint32 value
//
// `size` is the row's size by Azure's formula (engine::EstimateEntitySize), for the 4 MiB batch
// limit; `value` is engine::EncodeValue of the entity's properties (docs/format.md). The format
// lives only as long as one import: it is not persisted anywhere.

#ifndef PARTKV_TOOLS_CLI_IMPORT_SPILL_H_
#define PARTKV_TOOLS_CLI_IMPORT_SPILL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "partkv/entity.h"
#include "partkv/result.h"

namespace partkv::cli {

struct SpillRecord {
  uint64_t line = 0;  // 1-based line of the input
  uint64_t size = 0;  // by Azure's entity-size formula
  Entity entity;
};

// Appends the record of one row to *out.
void AppendSpillRecord(uint64_t line, uint64_t size, const Entity& entity, std::string* out);

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
  // The next record into *record; false after the last one. Corruption for a damaged file.
  Result<bool> Next(SpillRecord* record);

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
