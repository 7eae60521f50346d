// Key strategies: the values, their validation, and how each computes a key. The text form
// (Parse / ToString) lives in keys_parse.cc. docs/keys.md is the reference.

#include "partkv/keys.h"

#include <openssl/evp.h>
#include <xxhash.h>

#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>

namespace partkv {
namespace {

using Kind = KeyStrategy::Kind;

// Azure property names follow C# identifier rules, up to 255 characters; we accept the ASCII
// subset, which also keeps the text form unambiguous (no ',', '(', ')' or '=' in a name).
constexpr size_t kMaxFieldNameLength = 255;

bool IsValidFieldName(std::string_view name) {
  if (name.empty() || name.size() > kMaxFieldNameLength) return false;
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!alpha(name[0])) return false;
  for (char c : name) {
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool IsValidSeparatorChar(char c) {
  if (c <= ' ' || c > '~') return false;  // printable ASCII, no space
  switch (c) {
    case ',':
    case '(':
    case ')':
    case '=':
    case '/':
    case '\\':
    case '#':
    case '?':
      return false;
    default:
      return true;
  }
}

std::mt19937_64& ThreadRng() {
  thread_local std::mt19937_64 rng([] {
    uint64_t seed =
        static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    seed ^= std::hash<std::thread::id>()(std::this_thread::get_id()) * 0x9E3779B97F4A7C15ULL;
    try {
      std::random_device device;
      seed ^= (static_cast<uint64_t>(device()) << 32) ^ device();
    } catch (...) {
      // No entropy device: the clock and thread id above still make streams differ.
    }
    return seed;
  }());
  return rng;
}

// Lemire's multiply-shift: maps a uniform 64-bit value to 0..n-1 without a division; the bias is
// below n / 2^64.
uint32_t Reduce(uint64_t random, uint32_t n) {
  return static_cast<uint32_t>((static_cast<unsigned __int128>(random) * n) >> 64);
}

bool Md5Digest(std::string_view input, std::array<unsigned char, 16>* out) {
  unsigned int size = 0;
  return EVP_Digest(input.data(), input.size(), out->data(), &size, EVP_md5(), nullptr) == 1 &&
         size == out->size();
}

Status Md5Unavailable() {
  return Status::InvalidArgument(
      "MD5 is unavailable in this OpenSSL configuration (FIPS mode?); use hash=xxh3");
}

std::string Padded19(int64_t value) {
  std::string out(19, '0');
  for (int i = 18; i >= 0 && value > 0; --i) {
    out[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
  return out;
}

int64_t ClampTicks(int64_t ticks) {
  return ticks < 0 ? 0 : (ticks > DateTime::kMaxTicks ? DateTime::kMaxTicks : ticks);
}

Result<int64_t> ParseTicksKey(std::string_view key, const char* which) {
  auto bad = [&](const char* why) {
    return Status::InvalidArgument("invalid " + std::string(which) + " ticks key '" +
                                   std::string(key) + "': " + why +
                                   " (expected 19 digits, optionally followed by a non-digit "
                                   "and a suffix)");
  };
  if (key.size() < 19) return bad("shorter than 19 digits");
  int64_t value = 0;
  for (size_t i = 0; i < 19; ++i) {
    char c = key[i];
    if (c < '0' || c > '9') return bad("not a digit in the first 19 characters");
    int digit = c - '0';
    if (value > (DateTime::kMaxTicks - digit) / 10) return bad("above DateTime.MaxValue.Ticks");
    value = value * 10 + digit;
  }
  if (key.size() > 19 && key[19] >= '0' && key[19] <= '9') return bad("more than 19 digits");
  return value;
}

// The decoded code point of a well-formed UTF-8 sequence at text[*pos], advancing *pos; a byte
// that does not start a well-formed sequence is returned as its own value.
uint32_t NextCodepoint(std::string_view text, size_t* pos) {
  auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t b0 = byte(*pos);
  int length;
  uint32_t cp, min;
  if (b0 < 0x80) {
    ++*pos;
    return b0;
  } else if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2, cp = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3, cp = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    ++*pos;
    return b0;
  }
  if (*pos + length > text.size()) {
    ++*pos;
    return b0;
  }
  for (int i = 1; i < length; ++i) {
    uint8_t b = byte(*pos + i);
    if ((b & 0xC0) != 0x80) {
      ++*pos;
      return b0;
    }
    cp = cp << 6 | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++*pos;
    return b0;
  }
  *pos += length;
  return cp;
}

// The property (or entity key) a strategy reads. "PartitionKey" / "RowKey" read the entity's
// keys; Azure forbids custom properties of those names, so nothing is shadowed.
Result<Value> ReadField(const Entity& entity, const std::string& field,
                        const KeyStrategy& strategy) {
  auto missing = [&] {
    return Status::InvalidArgument("entity has no property '" + field +
                                   "' required by key strategy " + strategy.ToString());
  };
  if (field == "PartitionKey" || field == "RowKey") {
    const std::string& key = field == "RowKey" ? entity.row_key() : entity.partition_key();
    if (key.empty()) return missing();
    return Value::String(key);
  }
  const Value* value = entity.Get(field);
  if (value == nullptr) return missing();
  return *value;
}

// The text of a field's value in a key (the rules at the top of keys.h).
Result<std::string> FieldText(const Entity& entity, const std::string& field,
                              const KeyStrategy& strategy) {
  PARTKV_ASSIGN_OR_RETURN(Value value, ReadField(entity, field, strategy));
  auto cannot = [&](const std::string& why) {
    return Status::InvalidArgument("property '" + field + "' " + why + " (key strategy " +
                                   strategy.ToString() + ")");
  };
  switch (value.type()) {
    case Type::kString:
      return value.as_string();
    case Type::kBinary:
      return cannot("is Binary, which cannot form a key");
    case Type::kBoolean:
      return std::string(value.as_bool() ? "true" : "false");
    case Type::kDateTime:
      return value.as_datetime().ToString();
    case Type::kDouble: {
      double d = value.as_double();
      if (!std::isfinite(d)) return cannot("is a non-finite Double, which cannot form a key");
      char buf[32];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
      if (ec != std::errc()) return cannot("is a Double that could not be formatted");
      return std::string(buf, end);
    }
    case Type::kGuid:
      return value.as_guid().ToString();
    case Type::kInt32:
      return std::to_string(value.as_int32());
    case Type::kInt64:
      return std::to_string(value.as_int64());
  }
  return cannot("has an unknown type");
}

Result<DateTime> FieldTime(const Entity& entity, const std::string& field,
                           const KeyStrategy& strategy) {
  PARTKV_ASSIGN_OR_RETURN(Value value, ReadField(entity, field, strategy));
  if (value.type() != Type::kDateTime) {
    return Status::InvalidArgument("property '" + field + "' is " +
                                   std::string(TypeName(value.type())) + ", but key strategy " +
                                   strategy.ToString() + " needs a DateTime");
  }
  DateTime t = value.as_datetime();
  if (t.ticks < 0 || t.ticks > DateTime::kMaxTicks) {
    return Status::InvalidArgument("property '" + field + "' has ticks " + std::to_string(t.ticks) +
                                   " outside 0.." + std::to_string(DateTime::kMaxTicks) +
                                   " (key strategy " + strategy.ToString() + ")");
  }
  return t;
}

Status CheckField(std::string_view role, const std::string& name) {
  if (IsValidFieldName(name)) return Status::OK();
  return Status::InvalidArgument(std::string(role) + " '" + name +
                                 "' is not a property name ([A-Za-z_][A-Za-z0-9_]*, at most " +
                                 std::to_string(kMaxFieldNameLength) + " characters)");
}

Status CheckShards(uint32_t n) {
  if (n >= 1 && n <= KeyStrategy::kMaxShards) return Status::OK();
  return Status::InvalidArgument("N = " + std::to_string(n) + " is outside 1.." +
                                 std::to_string(KeyStrategy::kMaxShards));
}

}  // namespace

std::string_view SuffixHashName(SuffixHash hash) {
  switch (hash) {
    case SuffixHash::kXxh3:
      return "xxh3";
    case SuffixHash::kMd5:
      return "md5";
    case SuffixHash::kCodepointProduct:
      return "codepoint-product";
  }
  return "unknown";
}

KeyStrategy KeyStrategy::Concat(std::vector<std::string> fields, std::string separator) {
  return KeyStrategy(Kind::kConcat, std::move(fields), std::move(separator), 0, SuffixHash::kXxh3);
}

KeyStrategy KeyStrategy::RandomSuffix(std::string base_field, uint32_t n) {
  return KeyStrategy(Kind::kRandomSuffix, {std::move(base_field)}, "", n, SuffixHash::kXxh3);
}

KeyStrategy KeyStrategy::HashSuffix(std::string base_field, std::string source_field, uint32_t n,
                                    SuffixHash hash) {
  return KeyStrategy(Kind::kHashSuffix, {std::move(base_field), std::move(source_field)}, "", n,
                     hash);
}

KeyStrategy KeyStrategy::Md5Bits(std::string source_field, uint32_t k) {
  return KeyStrategy(Kind::kMd5Bits, {std::move(source_field)}, "", k, SuffixHash::kXxh3);
}

KeyStrategy KeyStrategy::AscendingTicks(std::string field) {
  return KeyStrategy(Kind::kAscendingTicks, {std::move(field)}, "", 0, SuffixHash::kXxh3);
}

KeyStrategy KeyStrategy::DescendingTicks(std::string field) {
  return KeyStrategy(Kind::kDescendingTicks, {std::move(field)}, "", 0, SuffixHash::kXxh3);
}

Status KeyStrategy::Validate() const {
  switch (kind_) {
    case Kind::kConcat:
      if (fields_.empty() || fields_.size() > kMaxConcatFields) {
        return Status::InvalidArgument("concat takes 1.." + std::to_string(kMaxConcatFields) +
                                       " fields, not " + std::to_string(fields_.size()));
      }
      for (const std::string& field : fields_) PARTKV_RETURN_IF_ERROR(CheckField("field", field));
      if (separator_.size() > kMaxSeparatorLength) {
        return Status::InvalidArgument("separator '" + separator_ + "' is longer than " +
                                       std::to_string(kMaxSeparatorLength) + " characters");
      }
      for (char c : separator_) {
        if (!IsValidSeparatorChar(c)) {
          return Status::InvalidArgument(
              "separator '" + separator_ +
              "' has a character that is not printable ASCII or is one of space , ( ) = / \\ # ?");
        }
      }
      return Status::OK();
    case Kind::kRandomSuffix:
      if (fields_.size() != 1) return Status::InvalidArgument("random-suffix takes one field");
      PARTKV_RETURN_IF_ERROR(CheckField("base field", fields_[0]));
      return CheckShards(count_);
    case Kind::kHashSuffix:
      if (fields_.size() != 2) {
        return Status::InvalidArgument("hash-suffix takes a base and a source field");
      }
      PARTKV_RETURN_IF_ERROR(CheckField("base field", fields_[0]));
      PARTKV_RETURN_IF_ERROR(CheckField("source field", fields_[1]));
      if (hash_ != SuffixHash::kXxh3 && hash_ != SuffixHash::kMd5 &&
          hash_ != SuffixHash::kCodepointProduct) {
        return Status::InvalidArgument("unknown suffix hash " +
                                       std::to_string(static_cast<int>(hash_)));
      }
      return CheckShards(count_);
    case Kind::kMd5Bits:
      if (fields_.size() != 1) return Status::InvalidArgument("md5-bits takes one field");
      PARTKV_RETURN_IF_ERROR(CheckField("source field", fields_[0]));
      if (count_ < 1 || count_ > kMaxMd5Bits) {
        return Status::InvalidArgument("K = " + std::to_string(count_) + " is outside 1.." +
                                       std::to_string(kMaxMd5Bits) + " (MD5 has 128 bits)");
      }
      return Status::OK();
    case Kind::kAscendingTicks:
    case Kind::kDescendingTicks:
      if (fields_.size() != 1) return Status::InvalidArgument("a ticks strategy takes one field");
      return CheckField("field", fields_[0]);
  }
  return Status::InvalidArgument("unknown key strategy kind " +
                                 std::to_string(static_cast<int>(kind_)));
}

Result<std::string> KeyStrategy::Compute(const Entity& entity) const {
  return ComputeWith(entity, nullptr);
}

Result<std::string> KeyStrategy::Compute(const Entity& entity, uint64_t random) const {
  return ComputeWith(entity, &random);
}

Result<std::string> KeyStrategy::ComputeWith(const Entity& entity, const uint64_t* random) const {
  PARTKV_RETURN_IF_ERROR(Validate().WithContext("invalid key strategy"));
  switch (kind_) {
    case Kind::kConcat: {
      std::string key;
      for (size_t i = 0; i < fields_.size(); ++i) {
        PARTKV_ASSIGN_OR_RETURN(std::string text, FieldText(entity, fields_[i], *this));
        if (i > 0) key += separator_;
        key += text;
      }
      return key;
    }
    case Kind::kRandomSuffix: {
      PARTKV_ASSIGN_OR_RETURN(std::string key, FieldText(entity, fields_[0], *this));
      uint64_t r = random != nullptr ? *random : ThreadRng()();
      key += kSuffixSeparator;
      key += std::to_string(Reduce(r, count_) + 1);
      return key;
    }
    case Kind::kHashSuffix: {
      PARTKV_ASSIGN_OR_RETURN(std::string key, FieldText(entity, fields_[0], *this));
      PARTKV_ASSIGN_OR_RETURN(std::string source, FieldText(entity, fields_[1], *this));
      uint32_t suffix = 0;
      switch (hash_) {
        case SuffixHash::kXxh3:
          suffix = Xxh3Suffix(source, count_);
          break;
        case SuffixHash::kMd5: {
          PARTKV_ASSIGN_OR_RETURN(suffix, Md5Suffix(source, count_));
          break;
        }
        case SuffixHash::kCodepointProduct:
          suffix = CodepointProductSuffix(source, count_);
          break;
      }
      key += kSuffixSeparator;
      key += std::to_string(suffix);
      return key;
    }
    case Kind::kMd5Bits: {
      PARTKV_ASSIGN_OR_RETURN(std::string source, FieldText(entity, fields_[0], *this));
      return Md5BinaryString(source, count_);
    }
    case Kind::kAscendingTicks: {
      PARTKV_ASSIGN_OR_RETURN(DateTime t, FieldTime(entity, fields_[0], *this));
      return AscendingTicksKey(t);
    }
    case Kind::kDescendingTicks: {
      PARTKV_ASSIGN_OR_RETURN(DateTime t, FieldTime(entity, fields_[0], *this));
      return DescendingTicksKey(t);
    }
  }
  return Status::InvalidArgument("unknown key strategy kind");
}

std::vector<std::string> KeyStrategy::ShardKeys(std::string_view base) const {
  std::vector<std::string> keys;
  if (!is_sharded()) {
    keys.emplace_back(base);
    return keys;
  }
  keys.reserve(count_);
  for (uint32_t i = 1; i <= count_; ++i) {
    std::string key(base);
    key += kSuffixSeparator;
    key += std::to_string(i);
    keys.push_back(std::move(key));
  }
  return keys;
}

Result<std::string> KeyStrategy::ComputeBase(const Entity& entity) const {
  if (!is_sharded()) return Compute(entity, 0);
  PARTKV_RETURN_IF_ERROR(Validate().WithContext("invalid key strategy"));
  PARTKV_ASSIGN_OR_RETURN(std::string base, FieldText(entity, fields_[0], *this));
  if (kind_ == Kind::kHashSuffix) {
    // The source must be present too: an entity without it could not have been written.
    PARTKV_ASSIGN_OR_RETURN(std::string source, FieldText(entity, fields_[1], *this));
    (void)source;
  }
  return base;
}

bool operator==(const KeyStrategy& a, const KeyStrategy& b) {
  return a.kind_ == b.kind_ && a.fields_ == b.fields_ && a.separator_ == b.separator_ &&
         a.count_ == b.count_ && a.hash_ == b.hash_;
}

std::string AscendingTicksKey(DateTime t) { return Padded19(ClampTicks(t.ticks)); }

std::string DescendingTicksKey(DateTime t) {
  return Padded19(DateTime::kMaxTicks - ClampTicks(t.ticks));
}

Result<DateTime> ParseAscendingTicksKey(std::string_view key) {
  PARTKV_ASSIGN_OR_RETURN(int64_t value, ParseTicksKey(key, "ascending"));
  return DateTime{value};
}

Result<DateTime> ParseDescendingTicksKey(std::string_view key) {
  PARTKV_ASSIGN_OR_RETURN(int64_t value, ParseTicksKey(key, "descending"));
  return DateTime{DateTime::kMaxTicks - value};
}

Result<std::string> Md5BinaryString(std::string_view input, uint32_t k) {
  if (k < 1 || k > KeyStrategy::kMaxMd5Bits) {
    return Status::InvalidArgument("MD5 bit count " + std::to_string(k) + " is outside 1..128");
  }
  std::array<unsigned char, 16> digest;
  if (!Md5Digest(input, &digest)) return Md5Unavailable();
  std::string bits(k, '0');
  for (uint32_t i = 0; i < k; ++i) {
    if (digest[i / 8] >> (7 - i % 8) & 1) bits[i] = '1';
  }
  return bits;
}

uint32_t Xxh3Suffix(std::string_view bytes, uint32_t n) {
  if (n == 0) return 0;
  return static_cast<uint32_t>(XXH3_64bits(bytes.data(), bytes.size()) % n) + 1;
}

Result<uint32_t> Md5Suffix(std::string_view bytes, uint32_t n) {
  if (n == 0) return Status::InvalidArgument("MD5 suffix count N must be at least 1");
  std::array<unsigned char, 16> digest;
  if (!Md5Digest(bytes, &digest)) return Md5Unavailable();
  uint64_t prefix = 0;
  for (int i = 0; i < 8; ++i) prefix = prefix << 8 | digest[i];
  return static_cast<uint32_t>(prefix % n) + 1;
}

uint32_t CodepointProductSuffix(std::string_view utf8, uint32_t n) {
  if (n == 0) return 0;
  // (a * b) mod n == ((a mod n) * (b mod n)) mod n; both factors are below 2^32, so the
  // product fits in 64 bits.
  uint64_t product = 1 % n;
  for (size_t pos = 0; pos < utf8.size();) {
    product = product * (NextCodepoint(utf8, &pos) % n) % n;
  }
  return static_cast<uint32_t>(product) + 1;
}

std::string UniqueRowSuffix(size_t length) {
  static constexpr char kAlphabet[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::uniform_int_distribution<int> pick(0, 35);
  std::mt19937_64& rng = ThreadRng();
  std::string out(length, '0');
  for (char& c : out) c = kAlphabet[pick(rng)];
  return out;
}

}  // namespace partkv
