#include "tools/bench/format.h"

#include <time.h>

#include <algorithm>
#include <cmath>

#include "fmt/format.h"

namespace partkv::compare {
namespace {

// Three significant digits, at least none after the point: 1.25, 15.2, 152.
std::string Sig3(double v) {
  if (v >= 100) return fmt::format("{:.0f}", v);
  if (v >= 10) return fmt::format("{:.1f}", v);
  return fmt::format("{:.2f}", v);
}

}  // namespace

std::string Rate(double v) {
  if (!std::isfinite(v) || v <= 0) return "–";
  if (v >= 1e6) return Sig3(v / 1e6) + " M/s";
  if (v >= 1e3) return Sig3(v / 1e3) + " k/s";
  return fmt::format("{:.0f}/s", v);
}

std::string Latency(double us) {
  if (!std::isfinite(us) || us <= 0) return "–";
  if (us >= 1e6) return Sig3(us / 1e6) + " s";
  if (us >= 1e3) return Sig3(us / 1e3) + " ms";
  return Sig3(us) + " µs";
}

std::string Duration(double s) {
  if (!std::isfinite(s) || s < 0) return "–";
  if (s >= 7200) return fmt::format("{:.1f} h", s / 3600);
  if (s >= 120) {
    auto whole = static_cast<int64_t>(std::llround(s));
    return fmt::format("{} min {:02d} s", whole / 60, whole % 60);
  }
  if (s >= 10) return fmt::format("{:.1f} s", s);
  return fmt::format("{:.2f} s", s);
}

std::string Bytes(uint64_t b) {
  const double v = static_cast<double>(b);
  if (v >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GiB", v / (1024.0 * 1024 * 1024));
  if (v >= 1024.0 * 1024) return fmt::format("{:.1f} MiB", v / (1024.0 * 1024));
  if (v >= 1024.0) return fmt::format("{:.0f} KiB", v / 1024.0);
  return fmt::format("{} B", b);
}

std::string Ratio(double r) {
  if (!std::isfinite(r) || r <= 0) return "–";
  if (r >= 10) return fmt::format("{:.0f}×", r);
  return fmt::format("{:.2f}×", r);
}

std::string Share(double f) {
  if (!std::isfinite(f) || f <= 0) return "0 %";
  const double p = f * 100;
  if (p >= 10) return fmt::format("{:.1f} %", p);
  if (p >= 1) return fmt::format("{:.2f} %", p);
  return fmt::format("{:.3f} %", p);
}

std::string Fixed(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

std::string Grouped(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string Sparkline(const std::vector<uint64_t>& values) {
  static constexpr const char* kLevels[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  const uint64_t max = values.empty() ? 0 : *std::max_element(values.begin(), values.end());
  std::string out;
  for (uint64_t v : values) {
    if (max == 0 || v == 0) {
      out += " ";
      continue;
    }
    // 1..8 eighths; any nonzero value shows at least the lowest block.
    const int level = static_cast<int>(std::ceil(8.0 * static_cast<double>(v) / max));
    out += kLevels[std::clamp(level, 1, 8) - 1];
  }
  return out;
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

size_t DisplayWidth(std::string_view utf8) {
  size_t n = 0;
  for (char c : utf8) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

}  // namespace partkv::compare
