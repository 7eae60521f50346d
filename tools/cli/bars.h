// Horizontal bar charts in plain text, for `stats` and `analyze`:
//
//   p0  ████████████████████████▌              312  23.1 KiB  3 logical
//   p1  ███████████▏                           140  10.4 KiB  2 logical
//
// Bars are drawn with the Unicode block elements in eighths of a column, scaled so that the
// largest value fills the bar area; any nonzero value shows at least a sliver. Labels longer than
// kMaxLabelColumns are cut with an ellipsis. Lines carry no trailing spaces.

#ifndef PARTKV_TOOLS_CLI_BARS_H_
#define PARTKV_TOOLS_CLI_BARS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace partkv::cli {

struct Bar {
  std::string label;
  uint64_t value = 0;
  std::vector<std::string> notes;  // columns after the value, right-aligned
};

inline constexpr size_t kMaxLabelColumns = 28;

// The chart, one line per bar, `width` columns wide (at least a 10-column bar area).
std::string RenderBars(const std::vector<Bar>& bars, int width);

// Columns a UTF-8 string takes on a terminal, counting one per code point.
size_t DisplayWidth(std::string_view utf8);

// `count` of `total` as a percentage with one decimal: "12.5%".
std::string Percent(uint64_t count, uint64_t total);

}  // namespace partkv::cli

#endif  // PARTKV_TOOLS_CLI_BARS_H_
