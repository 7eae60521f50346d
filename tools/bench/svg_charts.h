// Inline SVG charts for the HTML report: no scripts, no external fonts or files, sized in CSS
// pixels with a viewBox so they scale with the page. Every chart has a <title> for screen
// readers, labelled axes and values printed at the bars, so it reads without hovering.
//
// Colours are passed in as CSS colours; text uses the page's font (inherited).

#ifndef PARTKV_TOOLS_BENCH_SVG_CHARTS_H_
#define PARTKV_TOOLS_BENCH_SVG_CHARTS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace partkv::compare {

// Text safe inside XML/HTML elements and attribute values.
std::string Escape(const std::string& text);

struct Series {
  std::string name;
  std::string colour;
  std::vector<double> values;  // one per category; <= 0 draws no bar (and prints "–")
};

struct BarChartSpec {
  std::string title;                    // the chart's accessible title (also shown by the caller)
  std::string axis_label;               // under the value axis: "entities/s (higher is better)"
  std::vector<std::string> categories;  // one row per category (strategy)
  std::vector<Series> series;           // bars within a row, top to bottom
  bool log_scale = false;
  std::function<std::string(double)> format;  // value labels and ticks
  std::string id;                             // data-chart attribute
  int width = 560;
  bool zero_is_value = false;  // print format(0) at a zero bar instead of "–" (no data)
};

// Horizontal bars, grouped by category, with a legend when there is more than one series.
std::string HorizontalBarChart(const BarChartSpec& spec);

struct HeatSpec {
  std::string strategy;          // data-strategy attribute and title
  std::vector<uint64_t> counts;  // entities per physical partition
  uint64_t scale_max = 0;        // the y-axis top, shared by every strategy's histogram
  double mean = 0;               // drawn as a dashed line
};

// Vertical bars, one per physical partition, coloured by load relative to the mean (pale below
// the mean, through amber, to deep red at four times the mean and above).
std::string HeatHistogram(const HeatSpec& spec);

// The colour of a partition holding `ratio` times the mean load.
std::string HeatColour(double ratio);

struct LineSpec {
  std::string title;
  std::string x_label, y_label;
  std::vector<double> x;  // shared x values (event counts), log scale
  std::vector<Series> lines;
  std::function<std::string(double)> format_x, format_y;
  std::string id;
  int width = 560;
};

// Lines with markers, x on a log scale, y linear from 0.
std::string LineChart(const LineSpec& spec);

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_SVG_CHARTS_H_
