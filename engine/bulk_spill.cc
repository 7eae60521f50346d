#include "engine/bulk_spill.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace partkv::engine {
namespace {

constexpr size_t kReadChunk = 1u << 20;

size_t VarintLength(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7) ++n;
  return n;
}

}  // namespace

Status AppendRecord(const RowSealer& sealer, const Entity& entity, uint64_t line,
                    std::string* out) {
  PARTKV_RETURN_IF_ERROR(sealer.Seal(entity, out));
  PutVarint(line, out);
  return Status::OK();
}

Result<bool> ParseRecord(const RowSealer& sealer, std::string_view data, SpillRecord* record) {
  PARTKV_ASSIGN_OR_RETURN(bool whole, sealer.Parse(data, &record->row));
  if (!whole) return false;
  size_t pos = record->row.bytes().size();
  switch (GetVarint(data, &pos, &record->line)) {
    case VarintRead::kOk:
      return true;
    case VarintRead::kPartial:
      return false;
    case VarintRead::kBad:
      break;
  }
  return Status::Corruption("a bulk write's record has a malformed line number");
}

size_t RecordSize(const SpillRecord& record) {
  return record.row.bytes().size() + VarintLength(record.line);
}

Result<SpillFile> SpillFile::Create(const std::string& directory) {
  std::string dir = directory;
  if (dir.empty()) {
    std::error_code ec;
    dir = std::filesystem::temp_directory_path(ec).string();
    if (ec) dir = "/tmp";
  }
  std::string path = dir + "/partkv-bulk-XXXXXX";
  int fd = ::mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) {
    return Status::IOError("creating a spill file in " + dir + ": " + std::strerror(errno));
  }
  ::unlink(path.c_str());
  return SpillFile(fd, dir);
}

SpillFile::SpillFile(SpillFile&& other) noexcept
    : fd_(other.fd_),
      directory_(std::move(other.directory_)),
      bytes_(other.bytes_),
      buffer_(std::move(other.buffer_)),
      pos_(other.pos_),
      eof_(other.eof_) {
  other.fd_ = -1;
}

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status SpillFile::Append(std::string_view records) {
  while (!records.empty()) {
    ssize_t n = ::write(fd_, records.data(), records.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return Status::IOError("writing the bulk write's spill file in " + directory_ + ": " +
                             std::strerror(n < 0 ? errno : ENOSPC) +
                             " (it needs about the rows' encoded size; set TMPDIR elsewhere)");
    }
    records.remove_prefix(static_cast<size_t>(n));
    bytes_ += static_cast<uint64_t>(n);
  }
  return Status::OK();
}

Status SpillFile::Rewind() {
  if (::lseek(fd_, 0, SEEK_SET) != 0) {
    return Status::IOError("rewinding the bulk write's spill file: " +
                           std::string(std::strerror(errno)));
  }
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  buffer_.clear();
  pos_ = 0;
  eof_ = false;
  return Status::OK();
}

Status SpillFile::Refill() {
  buffer_.erase(0, pos_);
  pos_ = 0;
  size_t old = buffer_.size();
  buffer_.resize(old + kReadChunk);
  ssize_t n;
  do {
    n = ::read(fd_, buffer_.data() + old, kReadChunk);
  } while (n < 0 && errno == EINTR);
  buffer_.resize(old + static_cast<size_t>(n > 0 ? n : 0));
  if (n < 0) {
    return Status::IOError("reading the bulk write's spill file: " +
                           std::string(std::strerror(errno)));
  }
  if (n == 0) eof_ = true;
  return Status::OK();
}

Result<bool> SpillFile::Next(const RowSealer& sealer, SpillRecord* record) {
  while (true) {
    std::string_view data = std::string_view(buffer_).substr(pos_);
    PARTKV_ASSIGN_OR_RETURN(bool whole, ParseRecord(sealer, data, record));
    if (whole) {
      pos_ += RecordSize(*record);
      return true;
    }
    // An incomplete record: read more, unless the file has ended.
    if (eof_) {
      if (pos_ == buffer_.size()) return false;
      return Status::Corruption("the bulk write's spill file ends inside a record");
    }
    PARTKV_RETURN_IF_ERROR(Refill());
  }
}

}  // namespace partkv::engine
