// Value, DateTime and Guid: text forms and comparisons.

#include "partkv/value.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace partkv {
namespace {

constexpr int64_t kTicksPerSecond = 10'000'000;
constexpr int64_t kTicksPerDay = 86'400 * kTicksPerSecond;

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Reads exactly `n` decimal digits at text[*pos].
bool Digits(std::string_view text, size_t* pos, int n, int64_t* out) {
  if (*pos + n > text.size()) return false;
  int64_t v = 0;
  for (int i = 0; i < n; ++i) {
    char c = text[*pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

bool Expect(std::string_view text, size_t* pos, char c) {
  if (*pos >= text.size() || text[*pos] != c) return false;
  ++*pos;
  return true;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string_view TypeName(Type type) {
  switch (type) {
    case Type::kString:
      return "String";
    case Type::kBinary:
      return "Binary";
    case Type::kBoolean:
      return "Boolean";
    case Type::kDateTime:
      return "DateTime";
    case Type::kDouble:
      return "Double";
    case Type::kGuid:
      return "Guid";
    case Type::kInt32:
      return "Int32";
    case Type::kInt64:
      return "Int64";
  }
  return "Unknown";
}

Result<DateTime> DateTime::Parse(std::string_view text) {
  auto bad = [&](const char* what) {
    return Status::InvalidArgument("invalid DateTime '" + std::string(text) + "': " + what +
                                   " (expected YYYY-MM-DDTHH:MM:SS[.fffffff]Z)");
  };
  size_t pos = 0;
  int64_t year, month, day, hour, minute, second;
  if (!Digits(text, &pos, 4, &year) || !Expect(text, &pos, '-') || !Digits(text, &pos, 2, &month) ||
      !Expect(text, &pos, '-') || !Digits(text, &pos, 2, &day)) {
    return bad("malformed date");
  }
  if (year < 1 || month < 1 || month > 12 || day < 1 ||
      day > DaysInMonth(year, static_cast<unsigned>(month))) {
    return bad("date out of range");
  }
  if (!Expect(text, &pos, 'T') || !Digits(text, &pos, 2, &hour) || !Expect(text, &pos, ':') ||
      !Digits(text, &pos, 2, &minute)) {
    return bad("malformed time");
  }
  second = 0;
  if (pos < text.size() && text[pos] == ':') {
    ++pos;
    if (!Digits(text, &pos, 2, &second)) return bad("malformed seconds");
  }
  if (hour > 23 || minute > 59 || second > 59) return bad("time out of range");
  int64_t fraction = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 7) fraction = fraction * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return bad("empty fraction");
    if (digits > 9) return bad("more than 9 fractional digits");
    for (int i = digits; i < 7; ++i) fraction *= 10;
  }
  int64_t offset_minutes = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int sign = text[pos] == '+' ? 1 : -1;
    ++pos;
    int64_t oh, om;
    if (!Digits(text, &pos, 2, &oh) || !Expect(text, &pos, ':') || !Digits(text, &pos, 2, &om) ||
        oh > 23 || om > 59) {
      return bad("malformed UTC offset");
    }
    offset_minutes = sign * (oh * 60 + om);
  }
  if (pos != text.size()) return bad("unexpected trailing characters");
  int64_t days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  int64_t ticks = kUnixEpochTicks + days * kTicksPerDay +
                  (hour * 3600 + minute * 60 + second - offset_minutes * 60) * kTicksPerSecond +
                  fraction;
  if (ticks < 0 || ticks > kMaxTicks) return bad("outside 0001-01-01 .. 9999-12-31");
  return DateTime{ticks};
}

std::string DateTime::ToString() const {
  int64_t t = ticks - kUnixEpochTicks;
  int64_t days = t >= 0 ? t / kTicksPerDay : -((-t + kTicksPerDay - 1) / kTicksPerDay);
  int64_t rem = t - days * kTicksPerDay;
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  int64_t secs = rem / kTicksPerSecond;
  int64_t frac = rem % kTicksPerSecond;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%07lldZ",
                static_cast<long long>(y), m, d, static_cast<long long>(secs / 3600),
                static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60),
                static_cast<long long>(frac));
  return buf;
}

std::string DateTime::ToStringTrimmed() const {
  std::string s = ToString();  // "YYYY-MM-DDTHH:MM:SS.fffffffZ"
  constexpr size_t kDot = 19;
  size_t end = s.size() - 1;  // the 'Z'
  while (end > kDot + 1 && s[end - 1] == '0') --end;
  if (end == kDot + 1) end = kDot;  // no digit left: no fraction at all
  s.erase(end, s.size() - 1 - end);
  return s;
}

Result<Guid> Guid::Parse(std::string_view text) {
  std::string_view s = text;
  if (s.size() == 38 && s.front() == '{' && s.back() == '}') s = s.substr(1, 36);
  auto bad = [&] {
    return Status::InvalidArgument("invalid Guid '" + std::string(text) +
                                   "' (expected xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)");
  };
  if (s.size() != 36) return bad();
  Guid g;
  size_t out = 0;
  for (size_t i = 0; i < s.size();) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return bad();
      ++i;
      continue;
    }
    int hi = HexDigit(s[i]), lo = HexDigit(s[i + 1]);
    if (hi < 0 || lo < 0 || i + 1 == 8 || i + 1 == 13 || i + 1 == 18 || i + 1 == 23) return bad();
    g.bytes[out++] = static_cast<uint8_t>(hi << 4 | lo);
    i += 2;
  }
  return g;
}

std::string Guid::ToString() const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 15];
  }
  return out;
}

Value::Value(const Value& other) : type_(other.type_) {
  if (holds_string()) {
    new (&str_) std::string(other.str_);
  } else {
    new (&scalar_) Scalar(other.scalar_);
  }
}

Value::Value(Value&& other) noexcept : type_(other.type_) {
  if (holds_string()) {
    new (&str_) std::string(std::move(other.str_));
  } else {
    new (&scalar_) Scalar(other.scalar_);
  }
}

Value& Value::operator=(const Value& other) {
  if (this == &other) return *this;
  if (holds_string() && other.holds_string()) {
    str_ = other.str_;
    type_ = other.type_;
    return *this;
  }
  if (other.holds_string()) {
    std::string copy(other.str_);  // may throw: nothing has changed yet
    new (&str_) std::string(std::move(copy));
  } else {
    if (holds_string()) str_.~basic_string();
    new (&scalar_) Scalar(other.scalar_);
  }
  type_ = other.type_;
  return *this;
}

Value& Value::operator=(Value&& other) noexcept {
  if (this == &other) return *this;
  if (holds_string() && other.holds_string()) {
    str_ = std::move(other.str_);
  } else if (other.holds_string()) {
    new (&str_) std::string(std::move(other.str_));
  } else {
    if (holds_string()) str_.~basic_string();
    new (&scalar_) Scalar(other.scalar_);
  }
  type_ = other.type_;
  return *this;
}

bool operator==(const Value& a, const Value& b) {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case Type::kString:
    case Type::kBinary:
      return a.str_ == b.str_;
    case Type::kBoolean:
      return a.as_bool() == b.as_bool();
    case Type::kDateTime:
      return a.as_datetime() == b.as_datetime();
    case Type::kDouble: {
      double x = a.as_double(), y = b.as_double();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case Type::kGuid:
      return a.as_guid() == b.as_guid();
    case Type::kInt32:
      return a.as_int32() == b.as_int32();
    case Type::kInt64:
      return a.as_int64() == b.as_int64();
  }
  return false;
}

std::string Value::DebugString() const {
  switch (type()) {
    case Type::kString: {
      std::string out = "'";
      for (char c : as_string()) {
        out += c;
        if (c == '\'') out += '\'';
      }
      return out + "'";
    }
    case Type::kBinary: {
      static constexpr char kHex[] = "0123456789abcdef";
      std::string out = "X'";
      for (unsigned char c : as_binary()) {
        out += kHex[c >> 4];
        out += kHex[c & 15];
      }
      return out + "'";
    }
    case Type::kBoolean:
      return as_bool() ? "true" : "false";
    case Type::kDateTime:
      return "datetime'" + as_datetime().ToString() + "'";
    case Type::kDouble: {
      double v = as_double();
      if (std::isnan(v)) return "NaN";
      if (std::isinf(v)) return v > 0 ? "INF" : "-INF";
      char buf[40];
      auto res = std::to_chars(buf, buf + sizeof(buf), v);  // shortest round-trip form
      std::string s(buf, res.ptr);
      if (s.find_first_of(".eE") == std::string::npos) s += ".0";
      return s;
    }
    case Type::kGuid:
      return "guid'" + as_guid().ToString() + "'";
    case Type::kInt32:
      return std::to_string(as_int32());
    case Type::kInt64:
      return std::to_string(as_int64()) + "L";
  }
  return "?";
}

}  // namespace partkv
