// Reading the CSV files partkv-bench writes (RFC 4180), for tests.

#ifndef PARTKV_TESTS_TESTING_CSV_H_
#define PARTKV_TESTS_TESTING_CSV_H_

#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace partkv::testing {

// The fields of one CSV line: a quoted field may hold commas and "" for a quote; a trailing \r
// is dropped.
inline std::vector<std::string> SplitCsvLine(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') {
      field += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.push_back(std::move(field));
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

// A CSV text's rows after its header line, each as column name -> field.
inline std::vector<std::map<std::string, std::string>> CsvRows(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::map<std::string, std::string>> rows;
  if (!std::getline(in, line)) return rows;
  const std::vector<std::string> names = SplitCsvLine(line);
  while (std::getline(in, line)) {
    const std::vector<std::string> fields = SplitCsvLine(line);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < names.size() && i < fields.size(); ++i) row[names[i]] = fields[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace partkv::testing

#endif  // PARTKV_TESTS_TESTING_CSV_H_
