#include "engine/etag.h"

namespace partkv::engine {

namespace {

// Writes the ETag of `version` to end just before `end`; returns where it starts.
char* EtagBefore(uint64_t version, char* end) {
  static constexpr char kHex[] = "0123456789abcdef";
  char* p = end;
  *--p = '"';
  do {
    *--p = kHex[version & 15];
    version >>= 4;
  } while (version != 0);
  *--p = '"';
  *--p = '/';
  *--p = 'W';
  return p;
}

}  // namespace

std::string FormatEtag(uint64_t version) {
  // Short enough to stay within std::string's inline buffer for versions below 2^44.
  char buf[24];
  char* start = EtagBefore(version, buf + sizeof buf);
  return std::string(start, buf + sizeof buf);
}

void FormatEtagInto(uint64_t version, std::string* out) {
  char buf[24];
  char* start = EtagBefore(version, buf + sizeof buf);
  out->assign(start, static_cast<size_t>(buf + sizeof buf - start));
}

std::optional<uint64_t> ParseEtag(std::string_view etag) {
  constexpr std::string_view kPrefix = "W/\"";
  if (etag.size() < kPrefix.size() + 2 || etag.size() > kPrefix.size() + 17 ||
      etag.substr(0, kPrefix.size()) != kPrefix || etag.back() != '"') {
    return std::nullopt;
  }
  std::string_view hex = etag.substr(kPrefix.size(), etag.size() - kPrefix.size() - 1);
  if (hex.size() > 1 && hex[0] == '0') return std::nullopt;  // one text per version
  uint64_t v = 0;
  for (char c : hex) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return std::nullopt;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return v;
}

}  // namespace partkv::engine
