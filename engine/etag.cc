#include "engine/etag.h"

namespace partkv::engine {

std::string FormatEtag(uint64_t version) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "W/\"0x";
  for (int shift = 60; shift >= 0; shift -= 4) out += kHex[(version >> shift) & 15];
  out += '"';
  return out;
}

std::optional<uint64_t> ParseEtag(std::string_view etag) {
  constexpr std::string_view kPrefix = "W/\"0x";
  if (etag.size() != kPrefix.size() + 17 || etag.substr(0, kPrefix.size()) != kPrefix ||
      etag.back() != '"') {
    return std::nullopt;
  }
  uint64_t v = 0;
  for (char c : etag.substr(kPrefix.size(), 16)) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return std::nullopt;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return v;
}

}  // namespace partkv::engine
