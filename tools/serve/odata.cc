// OData JSON of the Table service's responses (odata.h).

#include "tools/serve/odata.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "partkv/base64.h"
#include "tools/serve/uri.h"

namespace partkv::serve {
namespace {

// `s` as a JSON string literal through nlohmann, bytes that are not UTF-8 as U+FFFD.
std::string Quote(std::string_view s) {
  return nlohmann::json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool IsUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;
    for (size_t k = 1; k <= n; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

// Appends `s` as a JSON string literal: what Quote writes, without building a JSON value (every
// key, name and string of every entity of a page passes through here).
// Per byte: 1 = must be escaped, 2 = not ASCII (the string needs a UTF-8 check), 0 = as is.
constexpr std::array<unsigned char, 256> kByteClass = [] {
  std::array<unsigned char, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = 1;
  t['"'] = t['\\'] = 1;
  for (int c = 0x80; c < 0x100; ++c) t[c] = 2;
  return t;
}();

void AppendQuoted(std::string& out, std::string_view s) {
  unsigned char seen = 0;  // one OR per byte: the loop the strings of a page spend their time in
  for (char ch : s) seen |= kByteClass[static_cast<unsigned char>(ch)];
  const bool plain = (seen & 1) == 0;
  if ((seen & 2) != 0 && !IsUtf8(s)) {
    out += Quote(s);
    return;
  }
  out.push_back('"');
  if (plain) {
    out.append(s);
  } else {
    static constexpr char kHex[] = "0123456789abcdef";
    for (char ch : s) {
      unsigned char c = static_cast<unsigned char>(ch);
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
        default:
          if (c < 0x20) {
            out += "\\u00";
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 15]);
          } else {
            out.push_back(ch);
          }
      }
    }
  }
  out.push_back('"');
}

bool Mentions(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool IsSystem(std::string_view name) {
  return name == "PartitionKey" || name == "RowKey" || name == "Timestamp";
}

bool Selected(const std::vector<std::string>& select, std::string_view name) {
  return select.empty() || std::find(select.begin(), select.end(), name) != select.end();
}

// "yyyy-mm-ddThh:mm:ss.fffffffZ", as DateTime::ToString writes it, without printf; with `trim`,
// without the fraction's trailing zeros (none at all for a whole second), as
// DateTime::ToStringTrimmed writes it. Azure returns Timestamp with 7 digits and every other
// DateTime trimmed (docs/serve.md "Responses").
void AppendDateTime(std::string& out, DateTime t, bool trim) {
  constexpr int64_t kTicksPerSecond = 10'000'000;
  constexpr int64_t kTicksPerDay = 86'400 * kTicksPerSecond;
  int64_t since_epoch = t.ticks - DateTime::kUnixEpochTicks;
  int64_t days = since_epoch >= 0 ? since_epoch / kTicksPerDay
                                  : -((-since_epoch + kTicksPerDay - 1) / kTicksPerDay);
  int64_t rem = since_epoch - days * kTicksPerDay;
  std::chrono::year_month_day ymd{std::chrono::sys_days{std::chrono::days{days}}};
  int64_t secs = rem / kTicksPerSecond;
  int64_t frac = rem % kTicksPerSecond;
  char buf[27];
  auto digits = [&buf](int at, int64_t v, int n) {
    for (int i = n - 1; i >= 0; --i, v /= 10) buf[at + i] = static_cast<char>('0' + v % 10);
  };
  digits(0, static_cast<int>(ymd.year()), 4);
  buf[4] = '-';
  digits(5, static_cast<unsigned>(ymd.month()), 2);
  buf[7] = '-';
  digits(8, static_cast<unsigned>(ymd.day()), 2);
  buf[10] = 'T';
  digits(11, secs / 3600, 2);
  buf[13] = ':';
  digits(14, secs / 60 % 60, 2);
  buf[16] = ':';
  digits(17, secs % 60, 2);
  buf[19] = '.';
  digits(20, frac, 7);
  size_t end = 27;  // one past the last fractional digit kept
  if (trim) {
    while (end > 20 && buf[end - 1] == '0') --end;
    if (end == 20) end = 19;  // a whole second: no '.' either
  }
  out.push_back('"');
  out.append(buf, end);
  out += "Z\"";
}

// The JSON text of a Double as partkv's writer gives it (partkv/json.h): shortest round-trip
// digits with '.' or an exponent; non-finite values as the strings the SDKs use.
void AppendDouble(std::string& out, double d) {
  if (std::isnan(d)) {
    out += "\"NaN\"";
  } else if (std::isinf(d)) {
    out += d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  } else {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
    std::string_view text(buf, ec == std::errc() ? end - buf : 0);
    out.append(text);
    if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
  }
}

template <typename Int>
void AppendInt(std::string& out, Int v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

void AppendValue(std::string& out, const Value& v) {
  switch (v.type()) {
    case Type::kString:
      return AppendQuoted(out, v.as_string());
    case Type::kBinary:
      return AppendQuoted(out, Base64Encode(v.as_binary()));
    case Type::kBoolean:
      out += v.as_bool() ? "true" : "false";
      return;
    case Type::kDateTime:
      return AppendDateTime(out, v.as_datetime(), /*trim=*/true);
    case Type::kDouble:
      return AppendDouble(out, v.as_double());
    case Type::kGuid:
      return AppendQuoted(out, v.as_guid().ToString());
    case Type::kInt32:
      return AppendInt(out, v.as_int32());
    case Type::kInt64:
      out.push_back('"');
      AppendInt(out, v.as_int64());
      out.push_back('"');
      return;
  }
}

// Writes one entity object into `out`, member by member.
class EntityWriter {
 public:
  explicit EntityWriter(std::string& out) : out_(out) { out_.push_back('{'); }
  void Name(std::string_view name) {
    if (!first_) out_.push_back(',');
    first_ = false;
    AppendQuoted(out_, name);
    out_.push_back(':');
  }
  void Annotation(std::string_view name, Type type) {
    if (!first_) out_.push_back(',');
    first_ = false;
    out_.push_back('"');
    out_.append(name);  // a property name: already known to need no escaping (checked by caller)
    out_ += "@odata.type\":\"Edm.";
    out_ += TypeName(type);
    out_.push_back('"');
  }
  void String(std::string_view name, std::string_view value) {
    Name(name);
    AppendQuoted(out_, value);
  }
  void Finish() { out_.push_back('}'); }

 private:
  std::string& out_;
  bool first_ = true;
};

bool NeedsNoEscape(std::string_view name) {
  for (char ch : name) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) return false;
  }
  return true;
}

void AppendEntity(std::string& out, const Entity& entity, std::string_view table,
                  const ODataContext& ctx, bool element, const std::vector<std::string>& select) {
  const JsonMetadata metadata = ctx.metadata;
  EntityWriter w(out);
  if (element && metadata != JsonMetadata::kNone) {
    w.String("odata.metadata", ctx.account_url + "/$metadata#" + std::string(table) + "/@Element");
  }
  if (metadata == JsonMetadata::kFull) {
    std::string path = EntityPath(table, entity.partition_key(), entity.row_key());
    w.String("odata.type", ctx.account + "." + std::string(table));
    w.String("odata.id", ctx.account_url + "/" + path);
    w.String("odata.editLink", path);
  }
  if (metadata != JsonMetadata::kNone && !entity.etag().empty()) {
    w.String("odata.etag", entity.etag());
  }
  // Azure returns only what $select names: the keys and Timestamp too (docs/serve.md).
  if (Selected(select, "PartitionKey")) w.String("PartitionKey", entity.partition_key());
  if (Selected(select, "RowKey")) w.String("RowKey", entity.row_key());
  if (entity.timestamp().ticks != 0 && Selected(select, "Timestamp")) {
    // Azure annotates Timestamp only under full metadata: under minimal metadata a client
    // knows its type from the name.
    if (metadata == JsonMetadata::kFull) w.Annotation("Timestamp", Type::kDateTime);
    w.Name("Timestamp");
    AppendDateTime(out, entity.timestamp(), /*trim=*/false);
  }
  for (const auto& [name, value] : entity) {
    if (!Selected(select, name)) continue;
    if (JsonNeedsAnnotation(value, metadata)) {
      if (NeedsNoEscape(name)) {
        w.Annotation(name, value.type());
      } else {
        w.String(name + "@odata.type", "Edm." + std::string(TypeName(value.type())));
      }
    }
    w.Name(name);
    AppendValue(out, value);
  }
  // A selected property the entity lacks comes back as null, as Azure does.
  for (const std::string& name : select) {
    if (IsSystem(name) || entity.Get(name) != nullptr) continue;
    w.Name(name);
    out += "null";
  }
  w.Finish();
}

}  // namespace

JsonMetadata MetadataFor(const HttpRequest& request) {
  std::string wanted;
  if (const std::string* format = request.Param("$format")) wanted = *format;
  if (wanted.empty()) wanted = request.Header("Accept");
  if (Mentions(wanted, "odata=nometadata")) return JsonMetadata::kNone;
  if (Mentions(wanted, "odata=fullmetadata")) return JsonMetadata::kFull;
  return JsonMetadata::kMinimal;
}

std::string ContentTypeFor(JsonMetadata metadata) {
  switch (metadata) {
    case JsonMetadata::kNone:
      return "application/json;odata=nometadata;streaming=true;charset=utf-8";
    case JsonMetadata::kFull:
      return "application/json;odata=fullmetadata;streaming=true;charset=utf-8";
    case JsonMetadata::kMinimal:
      break;
  }
  return "application/json;odata=minimalmetadata;streaming=true;charset=utf-8";
}

std::string EntityJson(const Entity& entity, std::string_view table, const ODataContext& ctx,
                       bool element, const std::vector<std::string>& select) {
  std::string out;
  out.reserve(256);
  AppendEntity(out, entity, table, ctx, element, select);
  return out;
}

std::string EntityPageJson(const std::vector<Entity>& entities, std::string_view table,
                           const ODataContext& ctx, const std::vector<std::string>& select) {
  std::string out = "{";
  out.reserve(64 + entities.size() * 256);
  if (ctx.metadata != JsonMetadata::kNone) {
    out +=
        "\"odata.metadata\":" + Quote(ctx.account_url + "/$metadata#" + std::string(table)) + ",";
  }
  out += "\"value\":[";
  for (size_t i = 0; i < entities.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendEntity(out, entities[i], table, ctx, false, select);
  }
  out += "]}";
  return out;
}

namespace {

nlohmann::json TableObject(std::string_view name, const ODataContext& ctx) {
  nlohmann::json t = nlohmann::json::object();
  if (ctx.metadata == JsonMetadata::kFull) {
    // Table names are letters and digits: nothing to quote or encode.
    std::string path = "Tables('" + std::string(name) + "')";
    t["odata.type"] = ctx.account + ".Tables";
    t["odata.id"] = ctx.account_url + "/" + path;
    t["odata.editLink"] = path;
  }
  t["TableName"] = std::string(name);
  return t;
}

}  // namespace

std::string TableJson(std::string_view name, const ODataContext& ctx, bool element) {
  nlohmann::json t = TableObject(name, ctx);
  if (element && ctx.metadata != JsonMetadata::kNone) {
    t["odata.metadata"] = ctx.account_url + "/$metadata#Tables/@Element";
  }
  return t.dump();
}

std::string TablePageJson(const std::vector<std::string>& names, const ODataContext& ctx) {
  nlohmann::json page = nlohmann::json::object();
  if (ctx.metadata != JsonMetadata::kNone) {
    page["odata.metadata"] = ctx.account_url + "/$metadata#Tables";
  }
  nlohmann::json values = nlohmann::json::array();
  for (const std::string& name : names) values.push_back(TableObject(name, ctx));
  page["value"] = std::move(values);
  return page.dump();
}

}  // namespace partkv::serve
