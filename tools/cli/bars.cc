#include "tools/cli/bars.h"

#include <algorithm>
#include <cstdio>

#include "tools/cli/cli.h"

namespace partkv::cli {
namespace {

constexpr size_t kMinBarColumns = 10;

// U+258F ... U+2589: one to seven eighths of a block; U+2588 the full block.
constexpr const char* kEighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
constexpr char kFullBlock[] = "█";

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// `text` cut to at most `columns` display columns, ending in "…" when cut.
std::string Truncate(const std::string& text, size_t columns) {
  if (DisplayWidth(text) <= columns) return text;
  std::string out;
  size_t width = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!IsContinuationByte(text[i])) {
      if (width + 1 == columns) break;
      ++width;
    }
    out.push_back(text[i]);
  }
  return out + "…";
}

std::string Padded(const std::string& text, size_t columns) {
  size_t width = DisplayWidth(text);
  return width >= columns ? text : text + std::string(columns - width, ' ');
}

}  // namespace

size_t DisplayWidth(std::string_view utf8) {
  size_t n = 0;
  for (char c : utf8) n += !IsContinuationByte(c);
  return n;
}

std::string Percent(uint64_t count, uint64_t total) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%",
                total == 0 ? 0.0 : 100.0 * static_cast<double>(count) / static_cast<double>(total));
  return buf;
}

std::string RenderBars(const std::vector<Bar>& bars, int width) {
  size_t label_columns = 0, value_columns = 0;
  std::vector<size_t> note_columns;
  uint64_t max = 0;
  std::vector<std::string> labels, values;
  for (const Bar& bar : bars) {
    labels.push_back(Truncate(bar.label, kMaxLabelColumns));
    values.push_back(GroupDigits(bar.value));
    label_columns = std::max(label_columns, DisplayWidth(labels.back()));
    value_columns = std::max(value_columns, values.back().size());
    if (bar.notes.size() > note_columns.size()) note_columns.resize(bar.notes.size());
    for (size_t n = 0; n < bar.notes.size(); ++n) {
      note_columns[n] = std::max(note_columns[n], DisplayWidth(bar.notes[n]));
    }
    max = std::max(max, bar.value);
  }
  size_t fixed = label_columns + 2 + 2 + value_columns;
  for (size_t columns : note_columns) fixed += 2 + columns;
  size_t bar_columns = std::max(kMinBarColumns, width > 0 && static_cast<size_t>(width) > fixed
                                                    ? static_cast<size_t>(width) - fixed
                                                    : kMinBarColumns);
  std::string out;
  for (size_t i = 0; i < bars.size(); ++i) {
    std::string line = Padded(labels[i], label_columns) + "  ";
    uint64_t eighths = 0;
    if (max > 0 && bars[i].value > 0) {
      eighths =
          static_cast<uint64_t>(static_cast<double>(bars[i].value) / static_cast<double>(max) *
                                static_cast<double>(bar_columns * 8));
      eighths = std::max<uint64_t>(eighths, 1);
    }
    std::string bar;
    for (uint64_t b = 0; b < eighths / 8; ++b) bar += kFullBlock;
    bar += kEighths[eighths % 8];
    line += Padded(bar, bar_columns) + "  ";
    line += std::string(value_columns - values[i].size(), ' ') + values[i];
    for (size_t n = 0; n < bars[i].notes.size(); ++n) {
      const std::string& note = bars[i].notes[n];
      line += "  " + std::string(note_columns[n] - DisplayWidth(note), ' ') + note;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace partkv::cli
