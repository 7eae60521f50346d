#include "tools/bench/line_file.h"

namespace partkv::compare {

std::string Errno() { return std::strerror(errno); }

Status WriteAll(int fd, const char* data, size_t n, const std::string& what) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return Status::IOError("cannot write " + what + ": " + Errno());
    data += w;
    n -= static_cast<size_t>(w);
  }
  return Status::OK();
}

}  // namespace partkv::compare
