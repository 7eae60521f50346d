#include "tools/bench/svg_charts.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "fmt/format.h"

namespace partkv::compare {
namespace {

constexpr const char* kInk = "#1f2933";
constexpr const char* kMuted = "#52606d";
constexpr const char* kGrid = "#e4e7eb";
constexpr const char* kAxis = "#9aa5b1";
constexpr size_t kMaxLabel = 34;

// The smallest of 1, 2, 2.5, 5 times a power of ten that is >= v.
double NiceCeil(double v) {
  if (!(v > 0)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double f : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (v <= f * p * (1 + 1e-9)) return f * p;
  }
  return 10 * p;
}

struct Axis {
  bool log = false;
  double lo = 0, hi = 1;
  std::vector<double> ticks;

  double Position(double v, double length) const {
    if (log) {
      if (v <= 0) return 0;
      return length * (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    }
    return length * (v - lo) / (hi - lo);
  }
};

Axis MakeAxis(const std::vector<double>& values, bool log) {
  Axis a;
  a.log = log;
  double max = 0, min_positive = 0;
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v)) continue;
    max = std::max(max, v);
    min_positive = min_positive == 0 ? v : std::min(min_positive, v);
  }
  if (log) {
    if (max <= 0) max = min_positive = 1;
    a.lo = std::pow(10.0, std::floor(std::log10(min_positive)));
    a.hi = std::pow(10.0, std::ceil(std::log10(max)));
    if (a.hi <= a.lo) a.hi = a.lo * 10;
    for (double t = a.lo; t <= a.hi * 1.0001; t *= 10) a.ticks.push_back(t);
  } else {
    const double step = NiceCeil(std::max(max, 1e-12) / 5);
    a.lo = 0;
    a.hi = std::max(step, std::ceil(max / step - 1e-9) * step);
    for (double t = 0; t <= a.hi * 1.0001; t += step) a.ticks.push_back(t);
  }
  return a;
}

std::string Clip(const std::string& label) {
  // Count code points, not bytes: labels may hold "…".
  size_t points = 0, cut = label.size();
  for (size_t i = 0; i < label.size(); ++i) {
    if ((static_cast<unsigned char>(label[i]) & 0xC0) == 0x80) continue;
    if (points == kMaxLabel - 1) cut = i;
    ++points;
  }
  return points <= kMaxLabel ? label : label.substr(0, cut) + "…";
}

// A tick label: the formatted value without trailing zeros after a decimal point
// ("50.0 k/s" -> "50 k/s", "1.00 ms" -> "1 ms"), and "0" for zero.
std::string Tick(double v, const std::function<std::string(double)>& format) {
  if (v == 0) return "0";
  const std::string text = format(v);
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '.' && i + 1 < text.size() &&
        std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      size_t j = i + 1;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      std::string fraction = text.substr(i + 1, j - i - 1);
      while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
      if (!fraction.empty()) out += "." + fraction;
      i = j - 1;
      continue;
    }
    out += text[i];
  }
  return out;
}

std::string Compact(double v) {
  if (v >= 1e6) return fmt::format("{:g}M", std::round(v / 1e5) / 10);
  if (v >= 1e3) return fmt::format("{:g}k", std::round(v / 1e2) / 10);
  return fmt::format("{:g}", v);
}

struct Rgb {
  double r, g, b;
};

Rgb Hex(const char* hex) {
  unsigned v = static_cast<unsigned>(std::strtoul(hex + 1, nullptr, 16));
  return {static_cast<double>(v >> 16), static_cast<double>((v >> 8) & 0xFF),
          static_cast<double>(v & 0xFF)};
}

std::string Legend(const std::vector<Series>& series, double x, double y) {
  std::string out;
  for (const Series& s : series) {
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" rx=\"2\" fill=\"{}\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" fill=\"{}\">{}</text>",
        x, y, s.colour, x + 17, y + 10, kInk, Escape(s.name));
    x += 17 + 7.2 * static_cast<double>(s.name.size()) + 22;
  }
  return out;
}

}  // namespace

std::string Escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string HeatColour(double ratio) {
  struct Stop {
    double at;
    const char* colour;
  };
  static constexpr Stop kStops[] = {{0, "#d9e6f2"}, {1, "#fdd49e"}, {2, "#fc8d59"}, {4, "#b30000"}};
  if (!(ratio > 0)) return kStops[0].colour;
  for (size_t i = 1; i < std::size(kStops); ++i) {
    if (ratio <= kStops[i].at) {
      const double t = (ratio - kStops[i - 1].at) / (kStops[i].at - kStops[i - 1].at);
      const Rgb a = Hex(kStops[i - 1].colour), b = Hex(kStops[i].colour);
      return fmt::format("#{:02x}{:02x}{:02x}",
                         static_cast<int>(std::lround(a.r + t * (b.r - a.r))),
                         static_cast<int>(std::lround(a.g + t * (b.g - a.g))),
                         static_cast<int>(std::lround(a.b + t * (b.b - a.b))));
    }
  }
  return kStops[std::size(kStops) - 1].colour;
}

std::string HorizontalBarChart(const BarChartSpec& spec) {
  const double label_w = 222, value_pad = 78, legend_h = spec.series.size() > 1 ? 26 : 4;
  const double bar_h = spec.series.size() > 1 ? 11 : 16, bar_gap = 2, group_gap = 11;
  const double plot_w = spec.width - label_w - value_pad;
  const double group_h = spec.series.size() * (bar_h + bar_gap) - bar_gap;
  const double top = legend_h + 4;
  const double plot_h = spec.categories.size() * (group_h + group_gap);
  const double height = top + plot_h + 42;
  std::vector<double> all;
  for (const Series& s : spec.series) all.insert(all.end(), s.values.begin(), s.values.end());
  const Axis axis = MakeAxis(all, spec.log_scale);

  std::string out = fmt::format(
      "<svg class=\"chart\" data-chart=\"{}\" viewBox=\"0 0 {} {:.0f}\" width=\"{}\" "
      "height=\"{:.0f}\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\"><title>{}</title>",
      Escape(spec.id), spec.width, height, spec.width, height, Escape(spec.title));
  if (spec.series.size() > 1) out += Legend(spec.series, label_w, 4);
  // Grid and ticks.
  for (double t : axis.ticks) {
    const double x = label_w + axis.Position(t, plot_w);
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>"
        "<text x=\"{0:.1f}\" y=\"{4:.1f}\" font-size=\"11\" fill=\"{5}\" "
        "text-anchor=\"middle\">{6}</text>",
        x, top - 2, top + plot_h, kGrid, top + plot_h + 14, kMuted,
        Escape(spec.format ? Tick(t, spec.format) : Compact(t)));
  }
  out += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>", label_w,
      top - 2, top + plot_h, kAxis);
  out += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" fill=\"{}\" "
      "text-anchor=\"middle\">{}</text>",
      label_w + plot_w / 2, top + plot_h + 34, kMuted, Escape(spec.axis_label));
  // Bars.
  for (size_t c = 0; c < spec.categories.size(); ++c) {
    const double gy = top + c * (group_h + group_gap) + group_gap / 2;
    out += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" fill=\"{}\" text-anchor=\"end\" "
        "dominant-baseline=\"middle\">{}</text>",
        label_w - 8, gy + group_h / 2, kInk, Escape(Clip(spec.categories[c])));
    for (size_t s = 0; s < spec.series.size(); ++s) {
      const Series& series = spec.series[s];
      const double v = c < series.values.size() ? series.values[c] : 0;
      const double y = gy + s * (bar_h + bar_gap);
      const double w = v > 0 ? std::max(1.5, axis.Position(v, plot_w)) : 0;
      const bool shown = v > 0 || (v == 0 && spec.zero_is_value);
      const std::string label = shown ? (spec.format ? spec.format(v) : Compact(v)) : "–";
      if (w > 0) {
        out += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" rx=\"2\" "
            "fill=\"{}\"><title>{}: {}</title></rect>",
            label_w + 0.5, y, w, bar_h, series.colour,
            Escape(series.name + " · " + spec.categories[c]), Escape(label));
      }
      out += fmt::format(
          "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" fill=\"{}\" "
          "dominant-baseline=\"middle\">{}</text>",
          label_w + w + 5, y + bar_h / 2, kMuted, Escape(label));
    }
  }
  return out + "</svg>";
}

std::string HeatHistogram(const HeatSpec& spec) {
  const double width = 340, height = 176, left = 46, right = 12, top = 12, bottom = 36;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  const size_t n = spec.counts.size();
  std::vector<double> values = {static_cast<double>(spec.scale_max)};
  const Axis axis = MakeAxis(values, false);
  std::string out = fmt::format(
      "<svg class=\"heat\" data-strategy=\"{0}\" viewBox=\"0 0 {1:.0f} {2:.0f}\" width=\"{1:.0f}\" "
      "height=\"{2:.0f}\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">"
      "<title>Entities per physical partition: {0}</title>",
      Escape(spec.strategy), width, height);
  for (double t : axis.ticks) {
    const double y = top + plot_h - axis.Position(t, plot_h);
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"{3}\"/>"
        "<text x=\"{4:.1f}\" y=\"{1:.1f}\" font-size=\"10\" fill=\"{5}\" text-anchor=\"end\" "
        "dominant-baseline=\"middle\">{6}</text>",
        left, y, left + plot_w, kGrid, left - 5, kMuted, Compact(t));
  }
  const double slot = n > 0 ? plot_w / n : plot_w;
  const double gap = slot > 6 ? 2 : 0;
  for (size_t i = 0; i < n; ++i) {
    const double v = static_cast<double>(spec.counts[i]);
    const double h = axis.Position(v, plot_h);
    const double ratio = spec.mean > 0 ? v / spec.mean : 0;
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" rx=\"1.5\" "
        "fill=\"{}\"><title>partition {}: {} entities ({:.2f}× the mean)</title></rect>",
        left + i * slot + gap / 2, top + plot_h - h, std::max(0.5, slot - gap), std::max(h, 0.0),
        HeatColour(ratio), i, spec.counts[i], ratio);
    const size_t every = n <= 16 ? 1 : (n + 7) / 8;
    if (i % every == 0 || i + 1 == n) {
      out += fmt::format(
          "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"9\" fill=\"{}\" "
          "text-anchor=\"middle\">{}</text>",
          left + (i + 0.5) * slot, top + plot_h + 11, kMuted, i);
    }
  }
  if (spec.mean > 0) {
    const double y = top + plot_h - axis.Position(spec.mean, plot_h);
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"{3}\" "
        "stroke-width=\"1.2\" stroke-dasharray=\"4 3\"/>"
        "<text x=\"{2:.1f}\" y=\"{4:.1f}\" font-size=\"10\" fill=\"{3}\" "
        "text-anchor=\"end\">mean</text>",
        left, y, left + plot_w, kInk, y - 3);
  }
  out += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"{3}\"/>"
      "<text x=\"{4:.1f}\" y=\"{5:.1f}\" font-size=\"11\" fill=\"{6}\" "
      "text-anchor=\"middle\">physical partition</text>"
      "<text transform=\"translate(11 {7:.1f}) rotate(-90)\" font-size=\"11\" fill=\"{6}\" "
      "text-anchor=\"middle\">entities</text>",
      left, top + plot_h, left + plot_w, kAxis, left + plot_w / 2, height - 6, kMuted,
      top + plot_h / 2);
  return out + "</svg>";
}

std::string LineChart(const LineSpec& spec) {
  const double left = 64, right = 16, top = 14, legend_rows = (spec.lines.size() + 1) / 2;
  const double plot_w = spec.width - left - right, plot_h = 210;
  const double height = top + plot_h + 58 + legend_rows * 18;
  std::vector<double> ys;
  for (const Series& s : spec.lines) ys.insert(ys.end(), s.values.begin(), s.values.end());
  const Axis y_axis = MakeAxis(ys, false);
  const Axis x_axis = [&] {
    Axis a;
    a.log = true;
    a.lo = spec.x.empty() ? 1 : spec.x.front() / 1.25;
    a.hi = spec.x.empty() ? 10 : spec.x.back() * 1.25;
    a.ticks = spec.x;
    return a;
  }();
  std::string out = fmt::format(
      "<svg class=\"chart\" data-chart=\"{}\" viewBox=\"0 0 {} {:.0f}\" width=\"{}\" "
      "height=\"{:.0f}\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\"><title>{}</title>",
      Escape(spec.id), spec.width, height, spec.width, height, Escape(spec.title));
  for (double t : y_axis.ticks) {
    const double y = top + plot_h - y_axis.Position(t, plot_h);
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"{3}\"/>"
        "<text x=\"{4:.1f}\" y=\"{1:.1f}\" font-size=\"11\" fill=\"{5}\" text-anchor=\"end\" "
        "dominant-baseline=\"middle\">{6}</text>",
        left, y, left + plot_w, kGrid, left - 6, kMuted,
        Escape(spec.format_y ? Tick(t, spec.format_y) : Compact(t)));
  }
  for (double t : x_axis.ticks) {
    const double x = left + x_axis.Position(t, plot_w);
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>"
        "<text x=\"{0:.1f}\" y=\"{4:.1f}\" font-size=\"11\" fill=\"{5}\" "
        "text-anchor=\"middle\">{6}</text>",
        x, top, top + plot_h, kGrid, top + plot_h + 15, kMuted,
        Escape(spec.format_x ? spec.format_x(t) : Compact(t)));
  }
  out += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" fill=\"{}\" "
      "text-anchor=\"middle\">{}</text>"
      "<text transform=\"translate(13 {:.1f}) rotate(-90)\" font-size=\"12\" fill=\"{}\" "
      "text-anchor=\"middle\">{}</text>",
      left + plot_w / 2, top + plot_h + 36, kMuted, Escape(spec.x_label), top + plot_h / 2, kMuted,
      Escape(spec.y_label));
  for (const Series& s : spec.lines) {
    std::string points;
    for (size_t i = 0; i < s.values.size() && i < spec.x.size(); ++i) {
      points += fmt::format("{:.1f},{:.1f} ", left + x_axis.Position(spec.x[i], plot_w),
                            top + plot_h - y_axis.Position(s.values[i], plot_h));
    }
    out += fmt::format(
        "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
        "stroke-linejoin=\"round\"/>",
        points, s.colour);
    for (size_t i = 0; i < s.values.size() && i < spec.x.size(); ++i) {
      out += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.2\" fill=\"{}\"><title>{}: "
          "{}</title></circle>",
          left + x_axis.Position(spec.x[i], plot_w),
          top + plot_h - y_axis.Position(s.values[i], plot_h), s.colour, Escape(s.name),
          Escape(spec.format_y ? spec.format_y(s.values[i]) : Compact(s.values[i])));
    }
  }
  // The legend, two entries a row.
  for (size_t i = 0; i < spec.lines.size(); ++i) {
    const double x = left + (i % 2) * (plot_w / 2), y = top + plot_h + 62 + (i / 2) * 18;
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"14\" height=\"3\" fill=\"{}\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" fill=\"{}\">{}</text>",
        x, y - 4, spec.lines[i].colour, x + 19, y, kInk, Escape(Clip(spec.lines[i].name)));
  }
  return out + "</svg>";
}

}  // namespace partkv::compare
