// The comparison as CSV (RFC 4180: comma-separated, a header row, fields quoted when they hold a
// comma, a quote or a line break): one row per strategy, plain numbers in base units (entities/s,
// microseconds, bytes, seconds, fractions 0..1), so that a spreadsheet or a script can redo any
// figure. The columns are listed in CsvColumns(); names never change meaning. Each read has its
// <name>_* columns (its name with characters other than letters and digits as '_': point_p50_us,
// device_day_p50_us).

#ifndef PARTKV_TOOLS_BENCH_CSV_REPORT_H_
#define PARTKV_TOOLS_BENCH_CSV_REPORT_H_

#include <string>
#include <vector>

#include "tools/bench/results.h"

namespace partkv::compare {

std::vector<std::string> CsvColumns(const ComparisonResult& result);
std::string RenderCsv(const ComparisonResult& result);
// The sweep: one row per (run, strategy) with the per-entity write cost and per-page read costs.
std::string RenderSweepCsv(const SweepResult& sweep);

// `field` quoted for CSV when it needs to be.
std::string CsvField(const std::string& field);

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_CSV_REPORT_H_
