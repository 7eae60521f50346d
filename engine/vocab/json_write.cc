// Entity JSON output (partkv/json.h): assembled member by member. Strings of well-formed UTF-8
// are escaped here, byte runs at a time; any other string goes to nlohmann, whose replacement of
// bad bytes by U+FFFD is the rule (json.h), so the output is nlohmann's either way.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/vocab/json_internal.h"
#include "partkv/base64.h"
#include "partkv/json.h"

namespace partkv {
namespace json_internal {

namespace {

// Whether `s` is well-formed UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF (what
// nlohmann's decoder accepts without replacing).
bool WellFormedUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t length;
    uint32_t code_point;
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2, code_point = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3, code_point = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4, code_point = c & 0x07;
    } else {
      return false;
    }
    if (n - i < length) return false;
    for (size_t k = 1; k < length; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return false;
      code_point = (code_point << 6) | (p[i + k] & 0x3F);
    }
    if (length == 3 && (code_point < 0x800 || (code_point >= 0xD800 && code_point <= 0xDFFF))) {
      return false;
    }
    if (length == 4 && (code_point < 0x10000 || code_point > 0x10FFFF)) return false;
    i += length;
  }
  return true;
}

}  // namespace

void AppendQuotedJson(std::string& out, std::string_view s) {
  if (!WellFormedUtf8(s)) {
    using nlohmann::json;
    out += json(s).dump(-1, ' ', false, json::error_handler_t::replace);
    return;
  }
  // As nlohmann's dump(ensure_ascii = false): '"' and '\\' escaped, the five short control
  // escapes, every other byte below 0x20 as \u00xx (lower-case hex), the rest as it is.
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default: {
        const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        out.append(escape, sizeof(escape));
      }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

std::string QuoteJson(std::string_view s) {
  std::string out;
  AppendQuotedJson(out, s);
  return out;
}

}  // namespace json_internal

namespace {

using json_internal::kTypeSuffix;
using json_internal::QuoteJson;

class ObjectWriter {
 public:
  ObjectWriter() { out_ = "{"; }

  void Name(std::string_view name) {
    if (out_.size() > 1) out_ += ',';
    AppendString(name);
    out_ += ':';
  }
  void String(std::string_view name, std::string_view value) {
    Name(name);
    AppendString(value);
  }
  void Raw(std::string_view name, std::string_view json_text) {
    Name(name);
    out_ += json_text;
  }
  void Annotation(std::string_view name, Type type) {
    Name(std::string(name) + std::string(kTypeSuffix));
    out_ += "\"Edm.";
    out_ += TypeName(type);
    out_ += '"';
  }
  std::string Finish() && {
    out_ += '}';
    return std::move(out_);
  }

 private:
  void AppendString(std::string_view s) { json_internal::AppendQuotedJson(out_, s); }

  std::string out_;
};

// The shortest round-trip digits of a finite Double ("12", "12.5", "1.23456789012346e+24").
std::string ShortestDigits(double d) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d);
  return std::string(buf, ec == std::errc() ? end : buf);
}

// Whether digits would read as an integer literal: no '.' and no exponent.
bool LooksIntegral(const std::string& digits) {
  return digits.find_first_of(".e") == std::string::npos;
}

// The JSON text of a Double: shortest round-trip digits, always with '.' or an exponent so it
// reads back as a Double; non-finite values as the strings Azure's SDKs use.
std::string DoubleJson(double d) {
  if (std::isnan(d)) return "\"NaN\"";
  if (std::isinf(d)) return d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  std::string s = ShortestDigits(d);
  if (LooksIntegral(s)) s += ".0";
  return s;
}

void WriteValue(ObjectWriter& w, const std::string& name, const Value& v) {
  switch (v.type()) {
    case Type::kString:
      return w.String(name, v.as_string());
    case Type::kBinary:
      return w.String(name, Base64Encode(v.as_binary()));
    case Type::kBoolean:
      return w.Raw(name, v.as_bool() ? "true" : "false");
    case Type::kDateTime:
      // As Azure returns a DateTime property; Timestamp keeps its 7 digits (EntityToJson).
      return w.String(name, v.as_datetime().ToStringTrimmed());
    case Type::kDouble:
      return w.Raw(name, DoubleJson(v.as_double()));
    case Type::kGuid:
      return w.String(name, v.as_guid().ToString());
    case Type::kInt32:
      return w.Raw(name, std::to_string(v.as_int32()));
    case Type::kInt64:
      return w.String(name, std::to_string(v.as_int64()));
  }
}

}  // namespace

std::string EntityToJson(const Entity& entity, const JsonWriteOptions& options) {
  const JsonMetadata metadata = options.metadata;
  ObjectWriter w;
  if (options.include_system && metadata != JsonMetadata::kNone && !entity.etag().empty()) {
    w.String("odata.etag", entity.etag());
  }
  w.String("PartitionKey", entity.partition_key());
  w.String("RowKey", entity.row_key());
  if (options.include_system && entity.timestamp().ticks != 0) {
    if (metadata != JsonMetadata::kNone) w.Annotation("Timestamp", Type::kDateTime);
    w.String("Timestamp", entity.timestamp().ToString());
  }
  for (const auto& [name, value] : entity) {
    if (JsonNeedsAnnotation(value, metadata)) w.Annotation(name, value.type());
    WriteValue(w, name, value);
  }
  return std::move(w).Finish();
}

bool JsonNeedsAnnotation(const Value& v, JsonMetadata metadata) {
  switch (metadata) {
    case JsonMetadata::kNone:
      return false;
    case JsonMetadata::kFull:
      return v.type() != Type::kString;
    case JsonMetadata::kMinimal:
      break;
  }
  switch (v.type()) {
    case Type::kString:
    case Type::kBoolean:
    case Type::kInt32:
      return false;
    case Type::kDouble: {
      // As Azure's OData writer: annotated when the shortest digits would read as an integer
      // (12.0) or the value is a string (NaN, Infinity); 12.5 and 1.23456789012346e+24 are not.
      double d = v.as_double();
      return !std::isfinite(d) || LooksIntegral(ShortestDigits(d));
    }
    case Type::kInt64:
    case Type::kDateTime:
    case Type::kGuid:
    case Type::kBinary:
      return true;
  }
  return true;
}

}  // namespace partkv
