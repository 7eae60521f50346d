#include "tools/common/machine.h"

#include <cstdlib>
#include <fstream>

#include "fmt/format.h"

namespace partkv::tools {

std::string FirstLineWith(const char* file, std::string_view prefix) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) {
      auto colon = line.find(':');
      if (colon == std::string::npos) return line;
      auto start = line.find_first_not_of(" \t", colon + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  }
  return "unknown";
}

uint64_t ProcStatusKiB(std::string_view field) {
  std::ifstream in("/proc/self/status");
  std::string prefix = std::string(field) + ":";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) return std::strtoull(line.c_str() + prefix.size(), nullptr, 10);
  }
  return 0;
}

std::string FormatLsmShape(const std::vector<uint64_t>& files_per_level) {
  std::string out;
  for (size_t level = 0; level < files_per_level.size(); ++level) {
    if (files_per_level[level] == 0) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("L{} {}", level, files_per_level[level]);
  }
  return out.empty() ? "no SST files" : out + " SST files";
}

}  // namespace partkv::tools
