#include "engine/local/bulk_spill.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace partkv::engine {
namespace {

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
    : fd_(other.fd_), directory_(std::move(other.directory_)), size_(other.size_) {
  other.fd_ = -1;
}

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status SpillFile::Append(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(size_));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return Status::IOError("writing the bulk write's spill file in " + directory_ + ": " +
                             std::strerror(n < 0 ? errno : ENOSPC) +
                             " (it needs about the rows' encoded size; set TMPDIR elsewhere)");
    }
    bytes.remove_prefix(static_cast<size_t>(n));
    size_ += static_cast<uint64_t>(n);
  }
  return Status::OK();
}

Status SpillFile::ReadAt(uint64_t offset, size_t n, std::string* out) const {
  const size_t old = out->size();
  out->resize(old + n);
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd_, out->data() + old + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      out->resize(old + got);
      return Status::IOError("reading the bulk write's spill file: " +
                             std::string(std::strerror(errno)));
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  out->resize(old + got);
  return Status::OK();
}

}  // namespace partkv::engine
