// The comparison as plain-text tables for a terminal: the workload, then writes and layout,
// reads on disk, cloud limits, and the findings; and the sweep's growth table. Lines carry no
// trailing spaces and use no colour, so the output reads the same in a log or a pipe.

#ifndef PARTKV_TOOLS_BENCH_TERMINAL_REPORT_H_
#define PARTKV_TOOLS_BENCH_TERMINAL_REPORT_H_

#include <string>
#include <vector>

#include "tools/bench/recommendation.h"
#include "tools/bench/results.h"

namespace partkv::compare {

// Columns of text, each left- or right-aligned, padded by display width.
class TextTable {
 public:
  struct Column {
    std::string header;
    bool right = true;
  };
  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void AddColumn(Column column) { columns_.push_back(std::move(column)); }
  void AddRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  // Header, a rule, then the rows; two spaces between columns.
  std::string Render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

std::string RenderTerminalReport(const ComparisonResult& result);
// The recommendation (recommendation.h): the best, its reasons, the runner-up, the scores and
// the traps, as the terminal report ends.
std::string RenderRecommendation(const Recommendation& recommendation);
// The data's attributes: type, presence, cardinality, the most frequent value and its share.
std::string AttributeTable(const std::vector<AttributeSummary>& attributes);
std::string RenderSweepReport(const SweepResult& sweep);

}  // namespace partkv::compare

#endif  // PARTKV_TOOLS_BENCH_TERMINAL_REPORT_H_
