// Entity JSON input (partkv/json.h): EntityFromJson, and its fast reader
// (engine/vocab/json_internal.h).
//
// The fast reader parses with simdjson's On-Demand API into views of the document's members,
// then types them by the rules of docs/json.md, but only for the plain cases: a flat object of
// strings, numbers, booleans and nulls; valid "@odata.type" annotations of present properties;
// keys that are strings; integers written as integer literals. For anything else it declines,
// and the exact reader (json_read_exact.cc) answers, with its exact message. It takes about a
// sixth of the exact reader's instructions (10 k against 65 k for a 400-byte entity of eight
// properties), which matters for bulk loads: `partkv import` reads every line of a file before
// it writes any.

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/vocab/json_internal.h"
#include "partkv/base64.h"
#include "partkv/json.h"

#if PARTKV_HAVE_SIMDJSON
#include "simdjson.h"
#endif

namespace partkv {
namespace json_internal {

std::optional<Type> ParseEdmType(std::string_view text) {
  static const std::array<std::pair<std::string_view, Type>, 8> kNames = [] {
    std::array<std::pair<std::string_view, Type>, 8> names;
    size_t i = 0;
    for (Type t : {Type::kString, Type::kBinary, Type::kBoolean, Type::kDateTime, Type::kDouble,
                   Type::kGuid, Type::kInt32, Type::kInt64}) {
      names[i++] = {TypeName(t), t};
    }
    return names;
  }();
  if (!text.starts_with("Edm.")) return std::nullopt;
  text.remove_prefix(4);
  for (const auto& [name, type] : kNames) {
    if (name == text) return type;
  }
  return std::nullopt;
}

DoubleText ParseDoubleText(std::string_view text, double* out) {
  if (text == "NaN") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return DoubleText::kOk;
  }
  if (text == "Infinity" || text == "-Infinity") {
    *out = text[0] == '-' ? -std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::infinity();
    return DoubleText::kOk;
  }
  // [+-] digits [. digits] [(e|E) [+-] digits], with a digit before or after the point.
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  const size_t mantissa = i;
  auto digits = [&] {
    size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i - start;
  };
  size_t whole = digits(), fraction = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    fraction = digits();
  }
  if (whole + fraction == 0) return DoubleText::kMalformed;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return DoubleText::kMalformed;
  }
  if (i != text.size()) return DoubleText::kMalformed;
  // from_chars takes no '+', and reads "-" itself; it rounds correctly.
  const char* first = text.data() + (negative ? mantissa - 1 : mantissa);
  const char* last = text.data() + text.size();
  double value = 0;
  auto [ptr, ec] = std::from_chars(first, last, value, std::chars_format::general);
  if (ec == std::errc() && ptr == last) {
    *out = value;
    return DoubleText::kOk;
  }
  if (ec != std::errc::result_out_of_range) return DoubleText::kMalformed;
  // Out of range: too large, or too small (which reads as zero, as strtod and JSON numbers do).
  // Which one is settled by the decimal exponent of the first nonzero digit.
  std::string_view m = text.substr(mantissa);
  size_t e = m.find_first_of("eE");
  int64_t exponent = 0;
  if (e != std::string_view::npos) {
    std::string_view x = m.substr(e + 1);
    int sign = 1;
    if (!x.empty() && (x[0] == '+' || x[0] == '-')) {
      sign = x[0] == '-' ? -1 : 1;
      x.remove_prefix(1);
    }
    for (char c : x) exponent = std::min<int64_t>(exponent * 10 + (c - '0'), 1'000'000);
    exponent *= sign;
    m = m.substr(0, e);
  }
  size_t dot = m.find('.');
  std::string_view int_part = m.substr(0, dot);
  size_t lead = int_part.find_first_not_of('0');
  int64_t magnitude;  // the power of ten of the first nonzero digit, plus one
  if (lead != std::string_view::npos) {
    magnitude = exponent + static_cast<int64_t>(int_part.size() - lead);
  } else {
    std::string_view frac = dot == std::string_view::npos ? "" : m.substr(dot + 1);
    size_t nz = frac.find_first_not_of('0');
    if (nz == std::string_view::npos) {  // zero: never out of range, but be safe
      *out = negative ? -0.0 : 0.0;
      return DoubleText::kOk;
    }
    magnitude = exponent - static_cast<int64_t>(nz);
  }
  if (magnitude > 0) return DoubleText::kOutOfRange;
  *out = negative ? -0.0 : 0.0;
  return DoubleText::kOk;
}

}  // namespace json_internal

#if PARTKV_HAVE_SIMDJSON
namespace {

namespace od = simdjson::ondemand;
using json_internal::IsKeyName;
using json_internal::IsSystemName;
using json_internal::kTypeSuffix;

// A member as read: views into the simdjson parser's string buffer or the padded document, valid
// until the next document is parsed; only the values kept are copied, once, into the Entity.
struct Member {
  enum class Kind : uint8_t { kString, kInt, kDouble, kBool, kNull };
  // What the member is to the entity.
  enum class Role : uint8_t { kProperty, kPartitionKey, kRowKey, kAnnotation, kIgnored };

  std::string_view name;
  std::string_view text;  // a string's value
  int64_t i = 0;          // an integer literal's value
  double d = 0;           // a number with a fraction or an exponent
  Kind kind = Kind::kNull;
  bool b = false;
  Role role = Role::kProperty;
  std::optional<Type> type;  // an annotation's type; a property's type from its annotation
};

// A whole decimal integer: an optional '-' and digits (what the exact reader accepts).
std::optional<int64_t> Decimal(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// JSON's whitespace, which simdjson leaves at the end of a raw number token.
bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool FitsInt32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

// Appends the property `m` with its annotated type to *entity; false where the exact reader
// decides (or rejects). Each value is built straight into the call, so that it is moved once.
bool AppendTyped(Type type, const Member& m, Entity* entity) {
  using Kind = Member::Kind;
  auto append = [&](Value value) {
    entity->AppendSorted(std::string(m.name), std::move(value));
    return true;
  };
  switch (type) {
    case Type::kString:
      return m.kind == Kind::kString && append(Value::String(std::string(m.text)));
    case Type::kBoolean:
      return m.kind == Kind::kBool && append(Value::Boolean(m.b));
    case Type::kInt32: {
      std::optional<int64_t> v;
      if (m.kind == Kind::kInt) v = m.i;
      if (m.kind == Kind::kString) v = Decimal(m.text);
      return v && FitsInt32(*v) && append(Value::Int32(static_cast<int32_t>(*v)));
    }
    case Type::kInt64: {
      std::optional<int64_t> v;
      if (m.kind == Kind::kInt) v = m.i;
      if (m.kind == Kind::kString) v = Decimal(m.text);
      return v && append(Value::Int64(*v));
    }
    case Type::kDouble: {
      // The exact reader reads an integer literal as an integer, then converts: "-0" is +0.0.
      if (m.kind == Kind::kInt) return append(Value::Double(static_cast<double>(m.i)));
      if (m.kind == Kind::kDouble) return append(Value::Double(m.d));
      // A string: the reading both readers share; an error is the exact reader's to word.
      double d = 0;
      return m.kind == Kind::kString &&
             json_internal::ParseDoubleText(m.text, &d) == json_internal::DoubleText::kOk &&
             append(Value::Double(d));
    }
    case Type::kDateTime: {
      if (m.kind != Kind::kString) return false;
      auto t = DateTime::Parse(m.text);
      return t.ok() && append(Value::DateTime(*t));
    }
    case Type::kGuid: {
      if (m.kind != Kind::kString) return false;
      auto g = Guid::Parse(m.text);
      return g.ok() && append(Value::Guid(*g));
    }
    case Type::kBinary: {
      if (m.kind != Kind::kString) return false;
      auto bytes = Base64Decode(m.text);
      return bytes.ok() && append(Value::Binary(std::move(*bytes)));
    }
  }
  return false;
}

// Appends an unannotated property, typed by its JSON form (String, Boolean, Int32, Double).
bool AppendInferred(const Member& m, Entity* entity) {
  using Kind = Member::Kind;
  auto append = [&](Value value) {
    entity->AppendSorted(std::string(m.name), std::move(value));
    return true;
  };
  switch (m.kind) {
    case Kind::kString:
      return append(Value::String(std::string(m.text)));
    case Kind::kBool:
      return append(Value::Boolean(m.b));
    case Kind::kInt:
      // Outside Int32: the exact reader's error names the Int64 annotation to use.
      return FitsInt32(m.i) && append(Value::Int32(static_cast<int32_t>(m.i)));
    case Kind::kDouble:
      return append(Value::Double(m.d));
    case Kind::kNull:
      break;
  }
  return false;
}

// Beyond this size a document gets a parser of its own, so that no thread keeps a large one.
constexpr size_t kMaxRetainedDocument = 64u << 10;

class FastReader {
 public:
  std::optional<Entity> Read(std::string_view json, const JsonReadOptions& options) {
    if (!ReadMembers(json) || !Classify()) return std::nullopt;
    return Build(options);
  }

 private:
  // Reads the top-level object's members; false to decline.
  bool ReadMembers(std::string_view json) {
    padded_.assign(json);
    padded_.resize(json.size() + simdjson::SIMDJSON_PADDING);
    od::document doc;
    if (parser_.iterate(padded_.data(), json.size(), padded_.size()).get(doc) !=
        simdjson::SUCCESS) {
      return false;
    }
    od::object object;
    if (doc.get_object().get(object) != simdjson::SUCCESS) return false;
    size_t count = 0;
    for (auto field : object) {
      if (count == members_.size()) members_.emplace_back();
      Member& m = members_[count];
      m.type.reset();
      m.role = Member::Role::kProperty;
      if (field.unescaped_key().get(m.name) != simdjson::SUCCESS) return false;
      od::value value;
      if (field.value().get(value) != simdjson::SUCCESS) return false;
      od::json_type type;
      if (value.type().get(type) != simdjson::SUCCESS) return false;
      switch (type) {
        case od::json_type::string:
          if (value.get_string().get(m.text) != simdjson::SUCCESS) return false;
          m.kind = Member::Kind::kString;
          break;
        case od::json_type::number: {
          // The literal decides integer or not, as in the exact reader; an integer too large for
          // int64 declines. simdjson checks the syntax and rounds correctly, as strtod does.
          // (Not get_number(): simdjson 3.0 reads -5188762146151729152.0 with it as 0.)
          std::string_view raw = value.raw_json_token();
          if (raw.find_first_of(".eE") == std::string_view::npos) {
            if (value.get_int64().get(m.i) != simdjson::SUCCESS) return false;
            m.kind = Member::Kind::kInt;
          } else {
            // simdjson checks the syntax; the value is std::from_chars's, correctly rounded as
            // in the exact reader. (simdjson 3.0's own value is wrong past 19 significant
            // digits: it reads 0.53333333333333333333333 as 3.796e-05.)
            if (value.get_double().get(m.d) != simdjson::SUCCESS) return false;
            const char* last = raw.data() + raw.size();
            while (last != raw.data() && IsJsonSpace(last[-1])) --last;
            auto [ptr, ec] = std::from_chars(raw.data(), last, m.d);
            if (ec != std::errc() || ptr != last) return false;
            m.kind = Member::Kind::kDouble;
          }
          break;
        }
        case od::json_type::boolean:
          if (value.get_bool().get(m.b) != simdjson::SUCCESS) return false;
          m.kind = Member::Kind::kBool;
          break;
        case od::json_type::null: {
          bool is_null = false;
          if (value.is_null().get(is_null) != simdjson::SUCCESS || !is_null) return false;
          m.kind = Member::Kind::kNull;
          break;
        }
        default:
          return false;  // a nested object or array: the exact reader's error
      }
      ++count;
    }
    // Nothing may follow the object: the document is then out of bounds.
    if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS) return false;
    count_ = count;
    return true;
  }

  // Gives each member its role, sorts the properties by name and attaches the annotations;
  // false to decline (a duplicate member, an unusual annotation). Roles follow the exact reader:
  // a name ending in "@odata.type" is an annotation, every other name but the keys and the system
  // names is a property (an odd one, like "a@b", fails validation later, as it would there).
  bool Classify() {
    properties_.clear();
    ignored_.clear();
    partition_key_ = row_key_ = -1;
    for (size_t i = 0; i < count_; ++i) {
      Member& m = members_[i];
      std::string_view name = m.name;
      // The first character settles most names: keys start with 'P' or 'R', system names with
      // 'T' or 'o'.
      const char first = name.empty() ? '\0' : name[0];
      if (name.size() >= kTypeSuffix.size() && name.back() == 'e' && name.ends_with(kTypeSuffix)) {
        name.remove_suffix(kTypeSuffix.size());
        if ((first == 'T' || first == 'o') && IsSystemName(name)) {
          m.role = Member::Role::kIgnored;
          ignored_.push_back(static_cast<uint32_t>(i));
          continue;
        }
        // Keys are always Edm.String: an annotation saying so is rare enough to leave to the
        // exact reader, as is one of another type (its error).
        if (name.empty() || IsKeyName(name) || m.kind != Member::Kind::kString) return false;
        m.type = json_internal::ParseEdmType(m.text);
        if (!m.type) return false;
        m.role = Member::Role::kAnnotation;
      } else if ((first == 'P' || first == 'R') && IsKeyName(name)) {
        int& index = first == 'P' ? partition_key_ : row_key_;
        if (index >= 0 || m.kind != Member::Kind::kString) return false;
        index = static_cast<int>(i);
        m.role = first == 'P' ? Member::Role::kPartitionKey : Member::Role::kRowKey;
      } else if ((first == 'T' || first == 'o') && IsSystemName(name)) {
        m.role = Member::Role::kIgnored;
        ignored_.push_back(static_cast<uint32_t>(i));
      } else {
        properties_.push_back(static_cast<uint32_t>(i));
      }
    }
    // Ignored members may not repeat either; there are seldom more than two.
    for (size_t a = 0; a < ignored_.size(); ++a) {
      for (size_t b = a + 1; b < ignored_.size(); ++b) {
        if (members_[ignored_[a]].name == members_[ignored_[b]].name) return false;
      }
    }

    // Properties in name order (bulk data usually comes sorted): duplicates become neighbours,
    // and the entity is built by appending.
    auto by_name = [&](uint32_t a, uint32_t b) { return members_[a].name < members_[b].name; };
    if (!std::is_sorted(properties_.begin(), properties_.end(), by_name)) {
      std::sort(properties_.begin(), properties_.end(), by_name);
    }
    for (size_t k = 1; k < properties_.size(); ++k) {
      if (members_[properties_[k]].name == members_[properties_[k - 1]].name) return false;
    }

    // Each annotation types a present property (a null one too), once.
    for (size_t i = 0; i < count_; ++i) {
      const Member& a = members_[i];
      if (a.role != Member::Role::kAnnotation) continue;
      std::string_view name = a.name.substr(0, a.name.size() - kTypeSuffix.size());
      auto it =
          std::lower_bound(properties_.begin(), properties_.end(), name,
                           [&](uint32_t p, std::string_view n) { return members_[p].name < n; });
      if (it == properties_.end() || members_[*it].name != name) return false;
      Member& property = members_[*it];
      if (property.type) return false;  // the same annotation twice
      property.type = a.type;
    }
    return true;
  }

  std::optional<Entity> Build(const JsonReadOptions& options) {
    if (options.require_keys && (partition_key_ < 0 || row_key_ < 0)) return std::nullopt;
    Entity entity;
    if (partition_key_ >= 0) entity.set_partition_key(std::string(members_[partition_key_].text));
    if (row_key_ >= 0) entity.set_row_key(std::string(members_[row_key_].text));
    if (options.read_system) {
      for (uint32_t i : ignored_) {
        const Member& m = members_[i];
        if (m.name == "odata.etag" || m.name == "Timestamp") {
          if (m.kind != Member::Kind::kString) return std::nullopt;  // the exact reader's error
          if (m.name == "odata.etag") {
            entity.set_etag(std::string(m.text));
          } else {
            auto when = DateTime::Parse(m.text);
            if (!when.ok()) return std::nullopt;
            entity.set_timestamp(*when);
          }
        }
      }
    }
    entity.ReserveProperties(properties_.size());
    for (uint32_t p : properties_) {
      const Member& m = members_[p];
      if (m.kind == Member::Kind::kNull) continue;  // null: no such property, as in Azure
      if (!(m.type ? AppendTyped(*m.type, m, &entity) : AppendInferred(m, &entity))) {
        return std::nullopt;
      }
    }
    return entity;
  }

  od::parser parser_;
  std::string padded_;           // the document with simdjson's padding
  std::vector<Member> members_;  // reused between documents; the first count_ are current
  size_t count_ = 0;
  std::vector<uint32_t> properties_;  // member indexes of the properties, in name order
  std::vector<uint32_t> ignored_;     // member indexes of ignored (system) members
  int partition_key_ = -1;            // member index of PartitionKey, or -1
  int row_key_ = -1;
};

}  // namespace

namespace json_internal {

std::optional<Entity> FastEntityFromJson(std::string_view json, const JsonReadOptions& options) {
  if (json.size() > kMaxRetainedDocument) return FastReader().Read(json, options);
  thread_local FastReader reader;
  return reader.Read(json, options);
}

bool HaveFastReader() { return true; }

}  // namespace json_internal

#else  // !PARTKV_HAVE_SIMDJSON: every document goes to the exact reader.

namespace json_internal {

std::optional<Entity> FastEntityFromJson(std::string_view, const JsonReadOptions&) {
  return std::nullopt;
}

bool HaveFastReader() { return false; }

}  // namespace json_internal

#endif  // PARTKV_HAVE_SIMDJSON

Result<Entity> EntityFromJson(std::string_view json, const JsonReadOptions& options) {
  if (std::optional<Entity> entity = json_internal::FastEntityFromJson(json, options)) {
    return std::move(*entity);
  }
  return json_internal::ExactEntityFromJson(json, options);
}

}  // namespace partkv
