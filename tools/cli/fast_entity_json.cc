#include "tools/cli/fast_entity_json.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "engine/base64.h"

#if PARTKV_CLI_HAVE_SIMDJSON
#include "simdjson.h"

namespace partkv::cli {
namespace {

namespace od = simdjson::ondemand;

constexpr std::string_view kTypeSuffix = "@odata.type";

// Members the library ignores, with their annotations (docs/json.md "Input rules").
bool IsSystemName(std::string_view name) {
  return name == "Timestamp" || name == "odata.etag" || name == "odata.metadata" ||
         name == "odata.type" || name == "odata.id" || name == "odata.editLink";
}

enum class Kind : uint8_t { kString, kNumber, kBool, kNull };

// Views into the simdjson parser's string buffer or the padded input: valid until the next
// document is parsed, so only the values kept are copied, once, into the Entity.
struct Member {
  std::string_view name;
  Kind kind = Kind::kNull;
  std::string_view text;  // a string's value, or a number's literal as written
  bool b = false;
};

std::optional<Type> ParseEdmType(std::string_view text) {
  static constexpr std::pair<std::string_view, Type> kTypes[] = {
      {"Edm.String", Type::kString},     {"Edm.Binary", Type::kBinary},
      {"Edm.Boolean", Type::kBoolean},   {"Edm.DateTime", Type::kDateTime},
      {"Edm.Double", Type::kDouble},     {"Edm.Guid", Type::kGuid},
      {"Edm.Int32", Type::kInt32},       {"Edm.Int64", Type::kInt64},
  };
  for (const auto& [name, type] : kTypes) {
    if (text == name) return type;
  }
  return std::nullopt;
}

// A whole decimal integer: an optional '-' and digits (what the library's from_chars accepts).
std::optional<int64_t> Decimal(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// Whether a JSON number literal is written as an integer (no fraction, no exponent).
bool IsIntegerLiteral(std::string_view literal) {
  return literal.find_first_of(".eE") == std::string_view::npos;
}

std::optional<double> ParseDouble(std::string_view literal) {
  // The literal was checked by simdjson's tokenizer; parse it again, correctly rounded, as
  // nlohmann's strtod does.
  double d = 0;
  auto [ptr, ec] = std::from_chars(literal.data(), literal.data() + literal.size(), d);
  if (ec != std::errc() || ptr != literal.data() + literal.size()) return std::nullopt;
  return d;
}

std::optional<Value> Typed(Type type, const Member& m) {
  const bool is_string = m.kind == Kind::kString;
  switch (type) {
    case Type::kString:
      if (!is_string) return std::nullopt;
      return Value::String(std::string(m.text));
    case Type::kBoolean:
      if (m.kind != Kind::kBool) return std::nullopt;
      return Value::Boolean(m.b);
    case Type::kInt32: {
      if (!is_string && !(m.kind == Kind::kNumber && IsIntegerLiteral(m.text))) {
        return std::nullopt;
      }
      auto v = Decimal(m.text);
      if (!v || *v < std::numeric_limits<int32_t>::min() ||
          *v > std::numeric_limits<int32_t>::max()) {
        return std::nullopt;
      }
      return Value::Int32(static_cast<int32_t>(*v));
    }
    case Type::kInt64: {
      if (!is_string && !(m.kind == Kind::kNumber && IsIntegerLiteral(m.text))) {
        return std::nullopt;
      }
      auto v = Decimal(m.text);
      if (!v) return std::nullopt;
      return Value::Int64(*v);
    }
    case Type::kDouble: {
      if (m.kind != Kind::kNumber) return std::nullopt;  // "NaN" etc.: the library decides
      if (IsIntegerLiteral(m.text)) {
        // The library reads an integer literal as an integer first, then converts: "-0" is +0.0.
        auto v = Decimal(m.text);
        if (!v) return std::nullopt;
        return Value::Double(static_cast<double>(*v));
      }
      auto d = ParseDouble(m.text);
      if (!d) return std::nullopt;
      return Value::Double(*d);
    }
    case Type::kDateTime: {
      if (!is_string) return std::nullopt;
      auto t = DateTime::Parse(m.text);
      if (!t.ok()) return std::nullopt;
      return Value::DateTime(*t);
    }
    case Type::kGuid: {
      if (!is_string) return std::nullopt;
      auto g = Guid::Parse(m.text);
      if (!g.ok()) return std::nullopt;
      return Value::Guid(*g);
    }
    case Type::kBinary: {
      if (!is_string) return std::nullopt;
      auto bytes = engine::Base64Decode(m.text);
      if (!bytes.ok()) return std::nullopt;
      return Value::Binary(std::move(*bytes));
    }
  }
  return std::nullopt;
}

// An unannotated value: its JSON form decides (String, Boolean, Int32, Double).
std::optional<Value> Inferred(const Member& m) {
  switch (m.kind) {
    case Kind::kString:
      return Value::String(std::string(m.text));
    case Kind::kBool:
      return Value::Boolean(m.b);
    case Kind::kNumber: {
      if (!IsIntegerLiteral(m.text)) {
        auto d = ParseDouble(m.text);
        if (!d) return std::nullopt;
        return Value::Double(*d);
      }
      auto v = Decimal(m.text);
      if (!v || *v < std::numeric_limits<int32_t>::min() ||
          *v > std::numeric_limits<int32_t>::max()) {
        return std::nullopt;  // the library's error names the Int64 annotation to use
      }
      return Value::Int32(static_cast<int32_t>(*v));
    }
    case Kind::kNull:
      break;
  }
  return std::nullopt;
}

}  // namespace

struct FastEntityJson::Impl {
  od::parser parser;
  std::string padded;            // the input with simdjson's padding
  std::vector<Member> members;   // reused between calls

  // Reads the top-level object's members; false to decline.
  bool ReadMembers(std::string_view json) {
    padded.assign(json);
    padded.resize(json.size() + simdjson::SIMDJSON_PADDING);
    od::document doc;
    if (parser.iterate(padded.data(), json.size(), padded.size()).get(doc) != simdjson::SUCCESS) {
      return false;
    }
    od::object object;
    if (doc.get_object().get(object) != simdjson::SUCCESS) return false;
    size_t count = 0;
    for (auto field : object) {
      if (count == members.size()) members.emplace_back();
      Member& m = members[count];
      std::string_view key;
      if (field.unescaped_key().get(key) != simdjson::SUCCESS) return false;
      m.name = key;
      od::value value;
      if (field.value().get(value) != simdjson::SUCCESS) return false;
      od::json_type type;
      if (value.type().get(type) != simdjson::SUCCESS) return false;
      switch (type) {
        case od::json_type::string: {
          std::string_view s;
          if (value.get_string().get(s) != simdjson::SUCCESS) return false;
          m.kind = Kind::kString;
          m.text = s;
          break;
        }
        case od::json_type::number: {
          std::string_view raw = value.raw_json_token();
          while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\n' ||
                                  raw.back() == '\r')) {
            raw.remove_suffix(1);
          }
          // Let the tokenizer check the literal's syntax.
          double ignored;
          if (value.get_double().get(ignored) != simdjson::SUCCESS) return false;
          m.kind = Kind::kNumber;
          m.text = raw;
          break;
        }
        case od::json_type::boolean: {
          bool b = false;
          if (value.get_bool().get(b) != simdjson::SUCCESS) return false;
          m.kind = Kind::kBool;
          m.b = b;
          break;
        }
        case od::json_type::null: {
          bool is_null = false;
          if (value.is_null().get(is_null) != simdjson::SUCCESS || !is_null) return false;
          m.kind = Kind::kNull;
          break;
        }
        default:
          return false;  // a nested object or array: the library's error
      }
      ++count;
    }
    // Nothing may follow the object: the document is then out of bounds.
    if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS) return false;
    members.resize(count);
    return true;
  }

  std::optional<Entity> Build(const JsonReadOptions& options) {
    // The members in name order: duplicates become neighbours (a duplicate is the library's
    // error), annotations are found by binary search, and properties come out sorted.
    order.resize(members.size());
    for (size_t i = 0; i < members.size(); ++i) order[i] = static_cast<uint32_t>(i);
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return members[a].name < members[b].name; });
    for (size_t i = 1; i < order.size(); ++i) {
      if (members[order[i]].name == members[order[i - 1]].name) return std::nullopt;
    }
    auto find = [&](std::string_view name) -> int {
      auto it = std::lower_bound(order.begin(), order.end(), name, [&](uint32_t m, std::string_view n) {
        return members[m].name < n;
      });
      return it != order.end() && members[*it].name == name ? static_cast<int>(*it) : -1;
    };

    // The annotations: each must name a present property and a known type; anything unusual
    // declines.
    types.assign(members.size(), std::nullopt);
    for (const Member& m : members) {
      std::string_view name = m.name;
      if (!name.ends_with(kTypeSuffix)) {
        // '@' is for annotations; "odata." names other than the system ones are unknown.
        if (name.find('@') != std::string_view::npos) return std::nullopt;
        if (name.starts_with("odata.") && !IsSystemName(name)) return std::nullopt;
        continue;
      }
      name.remove_suffix(kTypeSuffix.size());
      if (IsSystemName(name)) continue;
      if (name.empty() || name.find('@') != std::string_view::npos) return std::nullopt;
      if (name == "PartitionKey" || name == "RowKey") return std::nullopt;
      std::optional<Type> type = m.kind == Kind::kString ? ParseEdmType(m.text) : std::nullopt;
      int property = find(name);
      if (!type || property < 0) return std::nullopt;  // the library's error
      types[property] = type;
    }

    Entity entity;
    bool has_pk = false, has_rk = false;
    for (uint32_t i : order) {
      const Member& m = members[i];
      std::string_view name = m.name;
      if (name.ends_with(kTypeSuffix) || IsSystemName(name)) continue;
      if (name == "PartitionKey" || name == "RowKey") {
        if (m.kind != Kind::kString) return std::nullopt;
        if (name == "PartitionKey") {
          entity.set_partition_key(std::string(m.text));
          has_pk = true;
        } else {
          entity.set_row_key(std::string(m.text));
          has_rk = true;
        }
        continue;
      }
      if (m.kind == Kind::kNull) continue;  // null: no such property, as in Azure
      std::optional<Value> value = types[i] ? Typed(*types[i], m) : Inferred(m);
      if (!value) return std::nullopt;
      entity.AppendSorted(std::string(m.name), std::move(*value));
    }
    if (options.require_keys && (!has_pk || !has_rk)) return std::nullopt;
    return entity;
  }

  std::vector<uint32_t> order;               // member indexes in name order
  std::vector<std::optional<Type>> types;    // each member's annotated type
};

FastEntityJson::FastEntityJson() : impl_(std::make_unique<Impl>()) {}
FastEntityJson::~FastEntityJson() = default;

std::optional<Entity> FastEntityJson::TryParse(std::string_view json,
                                               const JsonReadOptions& options) {
  if (!impl_->ReadMembers(json)) return std::nullopt;
  return impl_->Build(options);
}

#else  // !PARTKV_CLI_HAVE_SIMDJSON: every document goes to the library's reader.

namespace partkv::cli {

struct FastEntityJson::Impl {};
FastEntityJson::FastEntityJson() : impl_(std::make_unique<Impl>()) {}
FastEntityJson::~FastEntityJson() = default;

std::optional<Entity> FastEntityJson::TryParse(std::string_view, const JsonReadOptions&) {
  return std::nullopt;
}

#endif  // PARTKV_CLI_HAVE_SIMDJSON

Result<Entity> FastEntityJson::Parse(std::string_view json, const JsonReadOptions& options) {
  if (std::optional<Entity> e = TryParse(json, options)) return std::move(*e);
  return EntityFromJson(json, options);
}

}  // namespace partkv::cli
