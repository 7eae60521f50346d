// Entity JSON output (partkv/json.h): assembled member by member, with nlohmann escaping the
// strings.

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "api/src/json_internal.h"
#include "partkv/base64.h"
#include "partkv/json.h"

namespace partkv {
namespace json_internal {

std::string QuoteJson(std::string_view s) {
  using nlohmann::json;
  return json(s).dump(-1, ' ', false, json::error_handler_t::replace);
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
  void AppendString(std::string_view s) { out_ += QuoteJson(s); }

  std::string out_;
};

// The JSON text of a Double: shortest round-trip digits, always with '.' or an exponent so it
// reads back as a Double; non-finite values as the strings Azure's SDKs use.
std::string DoubleJson(double d) {
  if (std::isnan(d)) return "\"NaN\"";
  if (std::isinf(d)) return d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d);
  std::string s(buf, ec == std::errc() ? end : buf);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
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
      double d = v.as_double();
      return !std::isfinite(d) || std::trunc(d) == d;
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
