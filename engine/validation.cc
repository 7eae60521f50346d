#include "engine/validation.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace partkv::engine {
namespace {

bool IsAsciiAlpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

// Decodes one code point of valid UTF-8 at s[*i]; REQUIRES IsValidUtf8(s).
uint32_t NextCodePoint(std::string_view s, size_t* i) {
  unsigned char c = static_cast<unsigned char>(s[*i]);
  if (c < 0x80) {
    ++*i;
    return c;
  }
  int n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
  uint32_t cp = c & (0x3F >> n);
  for (int k = 1; k <= n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[*i + k]) & 0x3F);
  *i += n + 1;
  return cp;
}

std::string Preview(std::string_view s) {
  constexpr size_t kMax = 40;
  std::string out(s.substr(0, kMax));
  if (s.size() > kMax) out += "...";
  return out;
}

std::string CodePointName(uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", cp);
  return buf;
}

// The length of the leading all-ASCII run of `s`, eight bytes at a time.
size_t AsciiPrefix(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (w & 0x8080808080808080ULL) break;
  }
  while (i < n && static_cast<unsigned char>(s[i]) < 0x80) ++i;
  return i;
}

}  // namespace

bool IsValidUtf8(std::string_view s) {
  size_t i = AsciiPrefix(s);
  const size_t n = s.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len;
    uint32_t min;
    if ((c & 0xE0) == 0xC0) {
      len = 2, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, min = 0x10000;
    } else {
      return false;
    }
    if (i + len > n) return false;
    uint32_t cp = c & (0x7F >> len);
    for (int k = 1; k < len; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

size_t Utf16Length(std::string_view s) {
  size_t ascii = AsciiPrefix(s);
  size_t units = ascii;
  for (unsigned char c : s.substr(ascii)) {
    if ((c & 0xC0) != 0x80) ++units;  // a lead byte or ASCII starts a code point
    if ((c & 0xF8) == 0xF0) ++units;  // 4-byte sequences need a surrogate pair
  }
  return units;
}

Status ValidateTableName(std::string_view name) {
  bool ok = name.size() >= 3 && name.size() <= 63 && IsAsciiAlpha(name[0]);
  for (size_t i = 1; ok && i < name.size(); ++i)
    ok = IsAsciiAlpha(name[i]) || IsAsciiDigit(name[i]);
  if (!ok) {
    return Status::InvalidArgument(
        "invalid table name '" + Preview(name) +
        "': 3 to 63 letters and digits, starting with a letter (^[A-Za-z][A-Za-z0-9]{2,62}$)");
  }
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "tables") return Status::InvalidArgument("table name 'tables' is reserved");
  return Status::OK();
}

Status ValidateKey(std::string_view key, std::string_view what, const Limits& limits) {
  if (!IsValidUtf8(key)) {
    return Status::InvalidArgument(std::string(what) + " is not valid UTF-8");
  }
  const bool utf16 = limits.size_model == Limits::SizeModel::kAzure && !limits.keys_in_utf8;
  const size_t size = utf16 ? 2 * Utf16Length(key) : key.size();
  const size_t max = what == "RowKey" ? limits.max_row_key_bytes : limits.max_key_bytes;
  if (size > max) {
    return Status::InvalidArgument(std::string(what) + " '" + Preview(key) + "' is " +
                                   std::to_string(size) + (utf16 ? " bytes in UTF-16" : " bytes") +
                                   "; the limit is " + std::to_string(max) + " bytes (" +
                                   std::string(limits.name) + ")");
  }
  if (size < limits.min_key_bytes) {
    return Status::InvalidArgument(std::string(what) + " is empty; " + std::string(limits.name) +
                                   " requires at least " + std::to_string(limits.min_key_bytes) +
                                   " byte");
  }
  if (limits.forbid_key_characters) {
    size_t i = 0;
    while (i < key.size()) {
      size_t at = i;
      uint32_t cp = NextCodePoint(key, &i);
      bool forbidden = cp == '/' || cp == '\\' || cp == '#' || cp == '?' || cp <= 0x1F ||
                       (cp >= 0x7F && cp <= 0x9F);
      if (forbidden) {
        std::string shown = cp > 0x20 && cp < 0x7F
                                ? "'" + std::string(1, static_cast<char>(cp)) + "'"
                                : CodePointName(cp);
        return Status::InvalidArgument(std::string(what) + " '" + Preview(key) +
                                       "' contains the forbidden character " + shown + " at byte " +
                                       std::to_string(at) +
                                       " (not allowed: / \\ # ? and U+0000-U+001F, U+007F-U+009F)");
      }
    }
  }
  return Status::OK();
}

Status ValidatePropertyName(std::string_view name, const Limits& limits) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("property name '" + Preview(name) + "' " + why);
  };
  if (name.empty()) return bad("is empty");
  if (!IsValidUtf8(name)) return bad("is not valid UTF-8");
  size_t chars = Utf16Length(name);
  if (chars > limits.max_property_name_chars) {
    return bad("is " + std::to_string(chars) + " characters; the limit is " +
               std::to_string(limits.max_property_name_chars));
  }
  // C# identifier rules: a letter or '_' first, then letters, digits or '_'. Non-ASCII characters
  // are accepted as letters.
  unsigned char first = static_cast<unsigned char>(name[0]);
  if (!(IsAsciiAlpha(name[0]) || name[0] == '_' || first >= 0x80)) {
    return bad("must start with a letter or '_'");
  }
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    if (!(IsAsciiAlpha(name[i]) || IsAsciiDigit(name[i]) || name[i] == '_' || c >= 0x80)) {
      std::string shown =
          c >= 0x20 && c < 0x7F ? "'" + std::string(1, name[i]) + "'" : CodePointName(c);
      return bad("contains " + shown + " at byte " + std::to_string(i) +
                 ": names are C# identifiers (letters, digits, '_')");
    }
  }
  if (name == "PartitionKey" || name == "RowKey" || name == "Timestamp") {
    return bad("is a system property and cannot be set as a custom property");
  }
  return Status::OK();
}

size_t EstimateEntitySize(const Entity& entity) {
  size_t size = 4 + 2 * (Utf16Length(entity.partition_key()) + Utf16Length(entity.row_key()));
  for (const auto& [name, value] : entity) {
    size += 8 + 2 * Utf16Length(name);
    switch (value.type()) {
      case Type::kString:
        size += 2 * Utf16Length(value.as_string()) + 4;
        break;
      case Type::kBinary:
        size += value.as_binary().size() + 4;
        break;
      case Type::kBoolean:
        size += 1;
        break;
      case Type::kDateTime:
      case Type::kDouble:
      case Type::kInt64:
        size += 8;
        break;
      case Type::kGuid:
        size += 16;
        break;
      case Type::kInt32:
        size += 4;
        break;
    }
  }
  return size;
}

size_t DynamoDbItemSize(const Entity& entity) {
  // The keys travel as two attributes named after the table's key schema; count them by value.
  size_t size = entity.partition_key().size() + entity.row_key().size();
  for (const auto& [name, value] : entity) {
    size += name.size();
    switch (value.type()) {
      case Type::kString:
        size += value.as_string().size();
        break;
      case Type::kBinary:
        size += value.as_binary().size();
        break;
      case Type::kBoolean:
        size += 1;
        break;
      case Type::kGuid:
        size += 36;
        break;  // stored as its text form
      default:
        size += 8;
        break;  // numbers and DateTimes
    }
  }
  return size;
}

size_t EntitySize(const Entity& entity, const Limits& limits) {
  return limits.size_model == Limits::SizeModel::kAzure ? EstimateEntitySize(entity)
                                                        : DynamoDbItemSize(entity);
}

Status ValidateEntity(const Entity& entity, const Limits& limits, size_t* size_out) {
  Status s = ValidateKey(entity.partition_key(), "PartitionKey", limits);
  if (!s.ok()) return s;
  s = ValidateKey(entity.row_key(), "RowKey", limits);
  if (!s.ok()) return s;
  if (entity.property_count() > limits.max_properties) {
    return Status::InvalidArgument("entity has " + std::to_string(entity.property_count()) +
                                   " properties; the limit is " +
                                   std::to_string(limits.max_properties) + " custom properties");
  }
  for (const auto& [name, value] : entity) {
    s = ValidatePropertyName(name, limits);
    if (!s.ok()) return s;
    if (value.type() == Type::kString) {
      const std::string& v = value.as_string();
      if (!IsValidUtf8(v)) {
        return Status::InvalidArgument("property '" + name + "': String value is not valid UTF-8");
      }
      size_t bytes16 =
          limits.size_model == Limits::SizeModel::kAzure ? 2 * Utf16Length(v) : v.size();
      if (bytes16 > limits.max_string_bytes) {
        return Status::InvalidArgument("property '" + name + "': String value is " +
                                       std::to_string(bytes16) + " bytes in UTF-16; the limit is " +
                                       std::to_string(limits.max_string_bytes) + " bytes (64 KiB)");
      }
    } else if (value.type() == Type::kBinary) {
      size_t n = value.as_binary().size();
      if (n > limits.max_binary_bytes) {
        return Status::InvalidArgument("property '" + name + "': Binary value is " +
                                       std::to_string(n) + " bytes; the limit is " +
                                       std::to_string(limits.max_binary_bytes) + " bytes (64 KiB)");
      }
    }
  }
  size_t size = EntitySize(entity, limits);
  if (size_out != nullptr) *size_out = size;
  if (size > limits.max_entity_bytes) {
    const bool azure = limits.size_model == Limits::SizeModel::kAzure;
    return Status::InvalidArgument(
        "entity is " + std::to_string(size) +
        (azure ? " bytes by Azure's size formula" : " bytes by DynamoDB's item size") +
        "; the limit is " + std::to_string(limits.max_entity_bytes) + " bytes" +
        (limits.max_entity_bytes == (1u << 20) ? " (1 MiB)" : "") + " (" +
        std::string(limits.name) + ")");
  }
  return Status::OK();
}

Status ValidateQueryShape(const Query& q, const Limits& limits) {
  constexpr size_t kMaxSelect = 255;
  if (q.page_size < 1 || q.page_size > Query::kMaxPageSize) {
    return Status::InvalidArgument("page size is " + std::to_string(q.page_size) +
                                   "; it must be 1.." + std::to_string(Query::kMaxPageSize));
  }
  if (q.partition_key && (q.partition_lower || q.partition_upper)) {
    return Status::InvalidArgument(
        "a query takes either one PartitionKey or a PartitionKey range, not both");
  }
  if (q.scan_time_budget.count() < 0) {
    return Status::InvalidArgument("scan time budget is " +
                                   std::to_string(q.scan_time_budget.count()) +
                                   " ms; it must be 0 (none) or more");
  }
  if (q.select.size() > kMaxSelect) {
    return Status::InvalidArgument("$select names " + std::to_string(q.select.size()) +
                                   " properties; the limit is " + std::to_string(kMaxSelect));
  }
  for (const auto& name : q.select) {
    if (name == "PartitionKey" || name == "RowKey" || name == "Timestamp") continue;
    Status s = ValidatePropertyName(name, limits);
    if (!s.ok()) return s.WithContext("$select");
  }
  return Status::OK();
}

}  // namespace partkv::engine
