#include "tools/bench/progress_bar.h"

#include <algorithm>
#include <cmath>

#include "fmt/format.h"

namespace partkv::compare {
namespace {

constexpr int kBarColumns = 24;
// U+258F ... U+2589: one to seven eighths of a block.
constexpr const char* kEighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};

std::string Bar(double fraction) {
  const int eighths = static_cast<int>(std::floor(fraction * kBarColumns * 8));
  std::string out = "[";
  int columns = 0;
  for (; columns < eighths / 8; ++columns) out += "█";
  if (columns < kBarColumns && eighths % 8 != 0) {
    out += kEighths[eighths % 8];
    ++columns;
  }
  out += std::string(kBarColumns - columns, ' ') + "]";
  return out;
}

}  // namespace

void ProgressBar::Scope(double begin, double end, std::string prefix) {
  begin_ = begin;
  end_ = end;
  prefix_ = std::move(prefix);
}

void ProgressBar::Show(double fraction, const std::string& what) {
  if (!line_.Due()) return;
  const double overall = std::clamp(begin_ + (end_ - begin_) * fraction, 0.0, 1.0);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // The estimate is poor in the first seconds and for the first few percent: show none.
  std::string eta = overall > 0.03 && elapsed > 3
                        ? "  ETA " + cli::HumanDuration(elapsed * (1 - overall) / overall)
                        : "";
  line_.Show(fmt::format("{} {:3.0f}%  {}{}{}", Bar(overall), overall * 100, prefix_, what, eta));
}

}  // namespace partkv::compare
