// The comparison as one self-contained HTML page: inline CSS and SVG, one small inline script, no
// external scripts, fonts, images or links to load. It shows the findings, a summary table, a
// partition-heat histogram per strategy, write and read rates side by side, the predicted cloud
// write times with the measured throttling, the sweep when there is one, and the machine and
// method.
//
// Self-check: when the page has loaded, the inline script counts the heat histograms (one
// <svg class="heat" data-strategy="..."> per strategy, each with one bar per physical partition)
// and the charts, and sets <html data-report-check="ok: 6 strategies, ..."> — or "error: ..." when
// something is missing or a script failed — so a headless browser can check the page rendered
// (tools/check-report.sh).

#ifndef PARTKV_TOOLS_BENCH_HTML_REPORT_H_
#define PARTKV_TOOLS_BENCH_HTML_REPORT_H_

#include <string>

#include "tools/bench/results.h"

namespace partkv::compare {

// The report of `result`; with a `sweep` (may be null) also the sweep section.
std::string RenderHtml(const ComparisonResult& result, const SweepResult* sweep = nullptr);

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_HTML_REPORT_H_
