// Reading a file of lines in chunks, for the JSON Lines of partkv-bench --data (dataset.cc): a
// file descriptor owned by an object, a write that finishes, and a line loop that copies what it
// reads to a spool file as it goes (stdin, so that it can be read again by offset).

#ifndef PARTKV_TOOLS_BENCH_LINE_FILE_H_
#define PARTKV_TOOLS_BENCH_LINE_FILE_H_

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "partkv/result.h"
#include "partkv/status.h"

namespace partkv::compare {

// strerror(errno).
std::string Errno();

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~UniqueFd() { Reset(); }
  int get() const { return fd_; }

 private:
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
};

// Writes all of [data, data + n) to `fd`, retrying short writes; IOError "cannot write <what>".
Status WriteAll(int fd, const char* data, size_t n, const std::string& what);

// Reads are this large; a longer line grows the buffer to hold it.
inline constexpr size_t kChunkBytes = size_t{1} << 20;

// Reads `input` to its end in chunks and calls on_line(offset, text, number) for every line
// (text without its "\n"; number 1-based), copying what it reads to `spool` when >= 0. `bytes`
// counts what was read.
template <typename OnLine>
Status ForEachLine(int input, int spool, const std::string& source, uint64_t* bytes,
                   OnLine&& on_line) {
  std::vector<char> buf(kChunkBytes);
  size_t begin = 0, end = 0;  // the unconsumed bytes: the start of a line
  uint64_t base = 0;          // the input offset of buf[0]
  uint64_t line = 0;
  for (;;) {
    if (begin > 0) {
      std::memmove(buf.data(), buf.data() + begin, end - begin);
      base += begin;
      end -= begin;
      begin = 0;
    }
    if (end == buf.size()) buf.resize(buf.size() * 2);  // a line longer than the buffer
    ssize_t n;
    do {
      n = ::read(input, buf.data() + end, buf.size() - end);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return Status::IOError("cannot read " + source + ": " + Errno());
    if (n == 0) break;
    if (spool >= 0) {
      PARTKV_RETURN_IF_ERROR(WriteAll(spool, buf.data() + end, n, "the copy of " + source));
    }
    *bytes += static_cast<uint64_t>(n);
    size_t scan = end;  // [begin, end) holds no newline
    end += static_cast<size_t>(n);
    while (const void* nl = std::memchr(buf.data() + scan, '\n', end - scan)) {
      const size_t at = static_cast<size_t>(static_cast<const char*>(nl) - buf.data());
      PARTKV_RETURN_IF_ERROR(
          on_line(base + begin, std::string_view(buf.data() + begin, at - begin), ++line));
      begin = scan = at + 1;
    }
  }
  if (begin < end) {
    PARTKV_RETURN_IF_ERROR(
        on_line(base + begin, std::string_view(buf.data() + begin, end - begin), ++line));
  }
  return Status::OK();
}

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_LINE_FILE_H_
