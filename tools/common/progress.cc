#include "tools/common/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace partkv::cli {

Progress::Progress() : enabled_(::isatty(STDERR_FILENO) == 1) {}

bool Progress::Due() {
  if (!enabled_) return false;
  auto now = std::chrono::steady_clock::now();
  if (shown_ && now - last_ < kInterval) return false;
  last_ = now;
  return true;
}

void Progress::Show(std::string_view text) {
  if (!enabled_) return;
  // \r returns to the line's start; ESC [K erases what a longer previous line left.
  std::fprintf(stderr, "\r\x1b[K%.*s", static_cast<int>(text.size()), text.data());
  std::fflush(stderr);
  shown_ = true;
}

void Progress::Clear() {
  if (!enabled_ || !shown_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

std::string HumanDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  auto s = static_cast<long long>(std::llround(seconds));
  char buf[48];
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%lld s", s);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%lld min %02lld s", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lld h %02lld min", s / 3600, (s % 3600) / 60);
  }
  return buf;
}

}  // namespace partkv::cli
