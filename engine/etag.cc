#include "engine/etag.h"

#include <cstring>

namespace partkv::engine {

namespace {

constexpr int64_t kTicksPerSecond = 10'000'000;
constexpr int64_t kSecondsPerDay = 86'400;
// Days from 0001-01-01 to 1970-01-01.
constexpr int64_t kUnixEpochDays = 719'162;
// Ticks of 9999-12-31T23:59:59.9999999: versions above it have no datetime form.
constexpr uint64_t kMaxTicks = 3'155'378'975'999'999'999ULL;

constexpr std::string_view kHead = "W/\"datetime'";
constexpr std::string_view kTail = "'\"";

// Days since 1970-01-01 to (year, month, day) and back (H. Hinnant's civil calendar algorithms).
void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719'468;
  const int64_t era = (z >= 0 ? z : z - 146'096) / 146'097;
  const auto doe = static_cast<unsigned>(z - era * 146'097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36'524 - doe / 146'096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146'097 + static_cast<int64_t>(doe) - 719'468;
}

void PutDigits(uint64_t v, int width, char* out) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
}

// Reads `width` decimal digits; false on anything else.
bool GetDigits(std::string_view s, size_t* pos, int width, unsigned* out) {
  if (*pos + static_cast<size_t>(width) > s.size()) return false;
  unsigned v = 0;
  for (int i = 0; i < width; ++i) {
    char c = s[*pos + static_cast<size_t>(i)];
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  *pos += static_cast<size_t>(width);
  *out = v;
  return true;
}

// A colon, as "%3A" or ":".
bool GetColon(std::string_view s, size_t* pos) {
  if (s.substr(*pos, 3) == "%3A") {
    *pos += 3;
    return true;
  }
  if (s.substr(*pos, 1) == ":") {
    *pos += 1;
    return true;
  }
  return false;
}

}  // namespace

void FormatEtagInto(uint64_t version, std::string* out) {
  if (version > kMaxTicks) version = kMaxTicks;  // never issued: the clock stops at year 9999
  const auto ticks = static_cast<int64_t>(version);
  const int64_t seconds = ticks / kTicksPerSecond;
  const auto fraction = static_cast<uint64_t>(ticks % kTicksPerSecond);
  const int64_t days = seconds / kSecondsPerDay - kUnixEpochDays;
  const auto second_of_day = static_cast<unsigned>(seconds % kSecondsPerDay);
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  // W/"datetime'YYYY-MM-DDTHH%3AMM%3ASS.fffffffZ'"
  char buf[64];
  char* p = buf;
  std::memcpy(p, kHead.data(), kHead.size());
  p += kHead.size();
  PutDigits(static_cast<uint64_t>(y), 4, p);
  p[4] = '-';
  PutDigits(m, 2, p + 5);
  p[7] = '-';
  PutDigits(d, 2, p + 8);
  p[10] = 'T';
  PutDigits(second_of_day / 3600, 2, p + 11);
  std::memcpy(p + 13, "%3A", 3);
  PutDigits(second_of_day / 60 % 60, 2, p + 16);
  std::memcpy(p + 18, "%3A", 3);
  PutDigits(second_of_day % 60, 2, p + 21);
  p[23] = '.';
  PutDigits(fraction, 7, p + 24);
  p[31] = 'Z';
  p += 32;
  std::memcpy(p, kTail.data(), kTail.size());
  p += kTail.size();
  out->assign(buf, static_cast<size_t>(p - buf));
}

std::string FormatEtag(uint64_t version) {
  std::string out;
  FormatEtagInto(version, &out);
  return out;
}

std::optional<uint64_t> ParseEtag(std::string_view etag) {
  if (!etag.starts_with(kHead) || !etag.ends_with(kTail)) return std::nullopt;
  std::string_view t = etag.substr(kHead.size(), etag.size() - kHead.size() - kTail.size());
  size_t pos = 0;
  unsigned year, month, day, hour, minute, second, fraction;
  if (!GetDigits(t, &pos, 4, &year) || t.substr(pos, 1) != "-") return std::nullopt;
  ++pos;
  if (!GetDigits(t, &pos, 2, &month) || t.substr(pos, 1) != "-") return std::nullopt;
  ++pos;
  if (!GetDigits(t, &pos, 2, &day) || t.substr(pos, 1) != "T") return std::nullopt;
  ++pos;
  if (!GetDigits(t, &pos, 2, &hour) || !GetColon(t, &pos)) return std::nullopt;
  if (!GetDigits(t, &pos, 2, &minute) || !GetColon(t, &pos)) return std::nullopt;
  if (!GetDigits(t, &pos, 2, &second) || t.substr(pos, 1) != ".") return std::nullopt;
  ++pos;
  if (!GetDigits(t, &pos, 7, &fraction) || t.substr(pos) != "Z") return std::nullopt;
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) {
    return std::nullopt;
  }
  static constexpr unsigned kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (day > kDays[month - 1] || (month == 2 && day == 29 && !leap)) return std::nullopt;
  const int64_t days = DaysFromCivil(year, month, day) + kUnixEpochDays;
  const int64_t seconds = days * kSecondsPerDay + hour * 3600 + minute * 60 + second;
  return static_cast<uint64_t>(seconds * kTicksPerSecond + fraction);
}

}  // namespace partkv::engine
