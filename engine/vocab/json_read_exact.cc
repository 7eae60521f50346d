// The exact reader of Entity JSON (engine/vocab/json_internal.h). A SAX pass over the document
// collects the top-level members (so duplicates, nesting and number spellings are seen before
// nlohmann's DOM would hide them), then the members are typed by their annotations. Every error
// message of EntityFromJson comes from here.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "engine/vocab/json_internal.h"
#include "partkv/base64.h"
#include "partkv/json.h"

namespace partkv {
namespace {

using nlohmann::json;

using json_internal::IsKeyName;
using json_internal::IsSystemName;
using json_internal::kTypeSuffix;
using json_internal::ParseEdmType;
using json_internal::QuoteJson;

// A top-level member's value. Integers are kept exactly as written: `text` is the literal, and
// `i` holds it when it fits int64 (nlohmann gives large integers to us as doubles).
struct Scalar {
  enum class Kind { kNull, kBool, kNumber, kString };
  Kind kind = Kind::kNull;
  bool b = false;
  bool integer_literal = false;  // a number written without '.', 'e' or 'E'
  bool fits_int64 = false;       // only for integer literals
  int64_t i = 0;
  double d = 0;
  std::string text;  // the number's literal, or the string's value
};

struct Member {
  std::string name;
  Scalar value;
};

std::string PropertyPrefix(std::string_view name) {
  return "property '" + std::string(name) + "': ";
}

// The length of the well-formed UTF-8 sequence at s[i], or 0 (overlongs, surrogates and code
// points past U+10FFFF are ill-formed).
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t len;
  unsigned char lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + len > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
  }
  return len;
}

// `s` with every byte that is not part of well-formed UTF-8 written as \xNN, so that a message
// quoting bad input is itself valid UTF-8.
std::string EscapeInvalidUtf8(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t len = Utf8SequenceLength(s, i);
    if (len == 0) {
      static constexpr char kHex[] = "0123456789ABCDEF";
      unsigned char c = static_cast<unsigned char>(s[i]);
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      ++i;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

// The value as it appeared, for messages: `number 1.5`, `string "abc"`, `true`, `null`.
std::string Describe(const Scalar& v) {
  switch (v.kind) {
    case Scalar::Kind::kNull:
      return "null";
    case Scalar::Kind::kBool:
      return v.b ? "true" : "false";
    case Scalar::Kind::kNumber:
      return "number " + v.text;
    case Scalar::Kind::kString: {
      constexpr size_t kMaxQuoted = 64;
      if (v.text.size() <= kMaxQuoted) return "string " + QuoteJson(v.text);
      size_t cut = kMaxQuoted;
      while (cut > 0 && (static_cast<unsigned char>(v.text[cut]) & 0xc0) == 0x80) --cut;
      return "string " + QuoteJson(std::string_view(v.text).substr(0, cut)) + "...";
    }
  }
  return "?";
}

// Collects the members of the top-level object, stopping at the first problem.
class MemberCollector : public nlohmann::json_sax<json> {
 public:
  std::vector<Member>& members() { return members_; }
  const Status& error() const { return error_; }

  bool null() override { return AddScalar(Scalar{}); }
  bool boolean(bool val) override {
    Scalar v;
    v.kind = Scalar::Kind::kBool;
    v.b = val;
    return AddScalar(std::move(v));
  }
  bool number_integer(number_integer_t val) override {
    return AddScalar(Integer(val, static_cast<double>(val), std::to_string(val)));
  }
  bool number_unsigned(number_unsigned_t val) override {
    Scalar v = Integer(0, static_cast<double>(val), std::to_string(val));
    v.fits_int64 = val <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    if (v.fits_int64) v.i = static_cast<int64_t>(val);
    return AddScalar(std::move(v));
  }
  bool number_float(number_float_t val, const string_t& literal) override {
    Scalar v;
    v.kind = Scalar::Kind::kNumber;
    v.d = val;
    v.text = literal;
    // nlohmann reads integers beyond the uint64 range as doubles; they are still integers.
    v.integer_literal = literal.find_first_of(".eE") == std::string::npos;
    return AddScalar(std::move(v));
  }
  bool string(string_t& val) override {
    Scalar v;
    v.kind = Scalar::Kind::kString;
    v.text = std::move(val);
    return AddScalar(std::move(v));
  }
  bool binary(binary_t&) override {
    return Fail(Status::InvalidArgument("unexpected binary value"));
  }

  bool start_object(std::size_t) override {
    if (depth_ == 0 && !seen_root_) {
      seen_root_ = true;
      depth_ = 1;
      return true;
    }
    return Nested("an object");
  }
  bool end_object() override {
    depth_ = 0;
    return true;
  }
  bool start_array(std::size_t) override { return Nested("an array"); }
  bool end_array() override { return true; }

  bool key(string_t& val) override {
    if (!names_.insert(val).second) {
      return Fail(Status::InvalidArgument(PropertyPrefix(val) + "appears more than once"));
    }
    pending_key_ = std::move(val);
    has_pending_key_ = true;
    return true;
  }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    // what() is "[json.exception.parse_error.101] parse error at line 1, column 5: <reason>";
    // keep the reason: the byte offset replaces line and column.
    std::string_view reason = ex.what();
    if (size_t p = reason.find("] "); p != std::string_view::npos) reason.remove_prefix(p + 2);
    if (reason.starts_with("parse error")) {
      if (size_t p = reason.find(": "); p != std::string_view::npos) reason.remove_prefix(p + 2);
    }
    std::string msg =
        "invalid JSON at byte " + std::to_string(position) + ": " + EscapeInvalidUtf8(reason);
    // An error inside a member's value names the member.
    if (has_pending_key_) msg = PropertyPrefix(pending_key_) + msg;
    return Fail(Status::InvalidArgument(msg));
  }

 private:
  static Scalar Integer(int64_t i, double d, std::string text) {
    Scalar v;
    v.kind = Scalar::Kind::kNumber;
    v.integer_literal = true;
    v.fits_int64 = true;
    v.i = i;
    v.d = d;
    v.text = std::move(text);
    return v;
  }

  bool AddScalar(Scalar v) {
    if (depth_ == 0) {
      return Fail(Status::InvalidArgument("entity JSON must be an object, got " + Describe(v)));
    }
    members_.push_back(Member{std::move(pending_key_), std::move(v)});
    pending_key_.clear();
    has_pending_key_ = false;
    return true;
  }

  bool Nested(const char* what) {
    if (depth_ == 0) {
      return Fail(
          Status::InvalidArgument(std::string("entity JSON must be an object, got ") + what));
    }
    return Fail(
        Status::InvalidArgument(PropertyPrefix(pending_key_) + "value is " + what +
                                "; property values must be strings, numbers, booleans or null"));
  }

  bool Fail(Status status) {
    error_ = std::move(status);
    return false;
  }

  std::vector<Member> members_;
  std::unordered_set<std::string> names_;
  std::string pending_key_;
  bool has_pending_key_ = false;
  int depth_ = 0;
  bool seen_root_ = false;
  Status error_;
};

enum class IntParse { kOk, kNotInteger, kOutOfRange };

// A decimal string: an optional '-' and digits, nothing else.
IntParse ParseDecimal(std::string_view s, int64_t* out) {
  if (s.empty()) return IntParse::kNotInteger;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, *out);
  if (ptr != end || ec == std::errc::invalid_argument) return IntParse::kNotInteger;
  return ec == std::errc::result_out_of_range ? IntParse::kOutOfRange : IntParse::kOk;
}

// Whether a JSON number literal (already checked by the lexer) denotes an integer exactly, and
// that integer. Decided on the decimal digits, not on the double, so 9007199254740993.0 is not
// rounded.
IntParse ExactInteger(std::string_view literal, int64_t* out) {
  bool negative = literal.starts_with('-');
  if (negative) literal.remove_prefix(1);
  size_t e = literal.find_first_of("eE");
  int64_t exponent = 0;
  if (e != std::string_view::npos) {
    std::string_view exp = literal.substr(e + 1);
    int sign = 1;
    if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) {
      sign = exp[0] == '-' ? -1 : 1;
      exp.remove_prefix(1);
    }
    for (char c : exp) exponent = std::min<int64_t>(exponent * 10 + (c - '0'), 100000);
    exponent *= sign;
    literal = literal.substr(0, e);
  }
  std::string digits;
  if (size_t dot = literal.find('.'); dot != std::string_view::npos) {
    exponent -= static_cast<int64_t>(literal.size() - dot - 1);
    digits = std::string(literal.substr(0, dot)) + std::string(literal.substr(dot + 1));
  } else {
    digits = std::string(literal);
  }
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  if (digits.empty()) {
    *out = 0;
    return IntParse::kOk;
  }
  while (digits.back() == '0') {
    digits.pop_back();
    ++exponent;
  }
  if (exponent < 0) return IntParse::kNotInteger;
  if (static_cast<int64_t>(digits.size()) + exponent > 19) return IntParse::kOutOfRange;
  std::string text = (negative ? "-" : "") + digits + std::string(exponent, '0');
  return ParseDecimal(text, out);
}

// An integer from a JSON number, exactly.
IntParse NumberToInteger(const Scalar& v, int64_t* out) {
  if (v.integer_literal) {
    if (!v.fits_int64) return IntParse::kOutOfRange;
    *out = v.i;
    return IntParse::kOk;
  }
  return ExactInteger(v.text, out);
}

Status Mismatch(std::string_view name, std::string_view expected, const Scalar& v) {
  return Status::InvalidArgument(PropertyPrefix(name) + std::string(expected) + ", got " +
                                 Describe(v));
}

Result<Value> ToInt32(std::string_view name, const Scalar& v) {
  constexpr std::string_view kRange = "Edm.Int32 value is outside [-2147483648, 2147483647]";
  int64_t n = 0;
  IntParse r;
  if (v.kind == Scalar::Kind::kNumber) {
    r = NumberToInteger(v, &n);
  } else if (v.kind == Scalar::Kind::kString) {
    r = ParseDecimal(v.text, &n);
  } else {
    return Mismatch(name, "Edm.Int32 value must be an integer", v);
  }
  if (r == IntParse::kNotInteger) return Mismatch(name, "Edm.Int32 value must be an integer", v);
  if (r == IntParse::kOutOfRange || n < std::numeric_limits<int32_t>::min() ||
      n > std::numeric_limits<int32_t>::max()) {
    return Mismatch(name, kRange, v);
  }
  return Value::Int32(static_cast<int32_t>(n));
}

Result<Value> ToInt64(std::string_view name, const Scalar& v) {
  constexpr std::string_view kRange =
      "Edm.Int64 value is outside [-9223372036854775808, 9223372036854775807]";
  constexpr std::string_view kForm = "Edm.Int64 value must be a decimal string";
  int64_t n = 0;
  IntParse r;
  if (v.kind == Scalar::Kind::kString) {
    r = ParseDecimal(v.text, &n);
  } else if (v.kind == Scalar::Kind::kNumber) {
    r = NumberToInteger(v, &n);
  } else {
    return Mismatch(name, kForm, v);
  }
  if (r == IntParse::kNotInteger) return Mismatch(name, kForm, v);
  if (r == IntParse::kOutOfRange) return Mismatch(name, kRange, v);
  return Value::Int64(n);
}

Result<Value> ToDouble(std::string_view name, const Scalar& v) {
  if (v.kind == Scalar::Kind::kNumber) return Value::Double(v.d);
  if (v.kind == Scalar::Kind::kString) {
    double d = 0;
    switch (json_internal::ParseDoubleText(v.text, &d)) {
      case json_internal::DoubleText::kOk:
        return Value::Double(d);
      case json_internal::DoubleText::kOutOfRange:
        return Mismatch(name, "Edm.Double value is outside the range of a double", v);
      case json_internal::DoubleText::kMalformed:
        break;
    }
  }
  return Mismatch(name,
                  "Edm.Double value must be a number, or a string holding a decimal or "
                  "scientific number or one of \"NaN\", \"Infinity\", \"-Infinity\"",
                  v);
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    if (x != b[i]) return false;
  }
  return true;
}

// A value whose type comes from its annotation.
Result<Value> ToType(std::string_view name, Type type, Scalar& v) {
  const bool is_string = v.kind == Scalar::Kind::kString;
  switch (type) {
    case Type::kString:
      if (!is_string) return Mismatch(name, "Edm.String value must be a string", v);
      return Value::String(std::move(v.text));
    case Type::kBoolean:
      if (v.kind == Scalar::Kind::kBool) return Value::Boolean(v.b);
      // An annotated Boolean may come as a string: the Azure SDKs send one back so when they read
      // it without type conversion, and the service takes "true" and "false" in any case.
      if (is_string &&
          (EqualsIgnoringCase(v.text, "true") || EqualsIgnoringCase(v.text, "false"))) {
        return Value::Boolean(v.text.size() == 4);
      }
      return Mismatch(
          name, "Edm.Boolean value must be true or false (or the string \"true\" or \"false\")", v);
    case Type::kInt32:
      return ToInt32(name, v);
    case Type::kInt64:
      return ToInt64(name, v);
    case Type::kDouble:
      return ToDouble(name, v);
    case Type::kDateTime: {
      if (!is_string) return Mismatch(name, "Edm.DateTime value must be an ISO 8601 string", v);
      auto t = DateTime::Parse(v.text);
      if (!t.ok()) return t.status().WithContext("property '" + std::string(name) + "'");
      return Value::DateTime(*t);
    }
    case Type::kGuid: {
      if (!is_string) return Mismatch(name, "Edm.Guid value must be a string", v);
      auto g = Guid::Parse(v.text);
      if (!g.ok()) return g.status().WithContext("property '" + std::string(name) + "'");
      return Value::Guid(*g);
    }
    case Type::kBinary: {
      if (!is_string) return Mismatch(name, "Edm.Binary value must be a base64 string", v);
      auto bytes = Base64Decode(v.text);
      if (!bytes.ok()) return bytes.status().WithContext("property '" + std::string(name) + "'");
      return Value::Binary(std::move(*bytes));
    }
  }
  return Status::InvalidArgument(PropertyPrefix(name) + "unsupported type");
}

// A value without annotation: the JSON form decides (String, Boolean, Int32, Double).
Result<Value> Infer(std::string_view name, Scalar& v) {
  switch (v.kind) {
    case Scalar::Kind::kString:
      return Value::String(std::move(v.text));
    case Scalar::Kind::kBool:
      return Value::Boolean(v.b);
    case Scalar::Kind::kNumber:
      if (!v.integer_literal) return Value::Double(v.d);
      if (v.fits_int64 && v.i >= std::numeric_limits<int32_t>::min() &&
          v.i <= std::numeric_limits<int32_t>::max()) {
        return Value::Int32(static_cast<int32_t>(v.i));
      }
      return Status::InvalidArgument(
          PropertyPrefix(name) + "integer " + v.text +
          " is outside the Int32 range; send it as a decimal string with \"" + std::string(name) +
          "@odata.type\":\"Edm.Int64\"");
    case Scalar::Kind::kNull:
      break;
  }
  return Status::InvalidArgument(PropertyPrefix(name) + "unexpected null");
}

Result<Entity> BuildEntity(std::vector<Member>& members, const JsonReadOptions& options) {
  // Pass 1: the annotations, by property name.
  std::unordered_map<std::string_view, Type> types;
  std::vector<std::string_view> annotated;  // in document order, for the orphan check
  for (const Member& m : members) {
    std::string_view name = m.name;
    if (!name.ends_with(kTypeSuffix)) continue;
    name.remove_suffix(kTypeSuffix.size());
    if (IsSystemName(name)) continue;
    const Scalar& v = m.value;
    if (v.kind != Scalar::Kind::kString) {
      return Mismatch(name, "annotation " + m.name + " must be a string such as \"Edm.Int64\"", v);
    }
    std::optional<Type> type = ParseEdmType(v.text);
    if (!type) {
      return Status::InvalidArgument(
          PropertyPrefix(name) + "unknown type " + QuoteJson(v.text) + " in " + m.name +
          " (expected Edm.String, Edm.Binary, Edm.Boolean, Edm.DateTime, Edm.Double, Edm.Guid, "
          "Edm.Int32 or Edm.Int64)");
    }
    if (IsKeyName(name) && *type != Type::kString) {
      return Status::InvalidArgument(PropertyPrefix(name) + "annotated Edm." +
                                     std::string(TypeName(*type)) +
                                     ", but keys are always Edm.String");
    }
    types.emplace(name, *type);
    annotated.push_back(name);
  }

  // Pass 2: the values.
  Entity entity;
  std::unordered_set<std::string_view> present;
  bool has_pk = false, has_rk = false;
  for (Member& m : members) {
    std::string_view name = m.name;
    if (options.read_system && (name == "odata.etag" || name == "Timestamp")) {
      const Scalar& v = m.value;
      if (v.kind != Scalar::Kind::kString) return Mismatch(name, "must be a string", v);
      if (name == "odata.etag") {
        entity.set_etag(v.text);
      } else {
        auto when = DateTime::Parse(v.text);
        if (!when.ok()) return Mismatch(name, when.status().message(), v);
        entity.set_timestamp(*when);
      }
      continue;
    }
    if (name.ends_with(kTypeSuffix) || IsSystemName(name)) continue;
    present.insert(name);
    Scalar& v = m.value;
    if (IsKeyName(name)) {
      if (v.kind != Scalar::Kind::kString) return Mismatch(name, "keys must be strings", v);
      if (name == "PartitionKey") {
        entity.set_partition_key(std::move(v.text));
        has_pk = true;
      } else {
        entity.set_row_key(std::move(v.text));
        has_rk = true;
      }
      continue;
    }
    if (v.kind == Scalar::Kind::kNull) continue;  // null means "no such property" in Azure
    auto it = types.find(name);
    Result<Value> value = it != types.end() ? ToType(name, it->second, v) : Infer(name, v);
    if (!value.ok()) return value.status();
    entity.Set(m.name, std::move(value).value());  // a copy: `present` views m.name
  }

  for (std::string_view name : annotated) {
    if (!present.contains(name)) {
      return Status::InvalidArgument(PropertyPrefix(name) + "annotation " + std::string(name) +
                                     std::string(kTypeSuffix) + " has no property " +
                                     std::string(name));
    }
  }
  if (options.require_keys) {
    if (!has_pk) return Status::InvalidArgument("property 'PartitionKey': missing");
    if (!has_rk) return Status::InvalidArgument("property 'RowKey': missing");
  }
  return entity;
}

}  // namespace

namespace json_internal {

Result<Entity> ExactEntityFromJson(std::string_view json_text, const JsonReadOptions& options) {
  MemberCollector collector;
  try {
    if (!json::sax_parse(json_text.data(), json_text.data() + json_text.size(), &collector)) {
      return collector.error().ok() ? Status::InvalidArgument("invalid JSON") : collector.error();
    }
  } catch (const json::exception& e) {
    // sax_parse reports errors through the collector; this is only a guard so that nothing
    // escapes the API.
    return Status::InvalidArgument("invalid JSON: " + EscapeInvalidUtf8(e.what()));
  }
  return BuildEntity(collector.members(), options);
}

}  // namespace json_internal

}  // namespace partkv
