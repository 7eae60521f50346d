// partkv::Value — one typed property value of an entity, with the eight EDM types of Azure Table.
//
//   Type       C++ representation            notes
//   String     std::string (UTF-8)           the default type of untyped JSON strings
//   Binary     Bytes (std::string of bytes)  base64 in JSON
//   Boolean    bool
//   DateTime   DateTime (.NET ticks, UTC)    100 ns units since 0001-01-01T00:00:00Z
//   Double     double                        IEEE 754, NaN and infinities allowed
//   Guid       Guid (16 bytes)               bytes in the order of the canonical text form
//   Int32      int32_t
//   Int64      int64_t
//
// A Value is a plain copyable value; it holds no references to anything else.

#ifndef PARTKV_VALUE_H_
#define PARTKV_VALUE_H_

#include <array>
#include <cstdint>
#include <new>
#include <string>
#include <string_view>

#include "partkv/result.h"

namespace partkv::engine {
class ValueCodecAccess;  // the value decoder builds values in place (engine/value_codec.cc)
}  // namespace partkv::engine

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

// The property types. The numbers are persisted on disk (docs/format.md): never renumber them.
enum class Type : uint8_t {
  kString = 1,
  kBinary = 2,
  kBoolean = 3,
  kDateTime = 4,
  kDouble = 5,
  kGuid = 6,
  kInt32 = 7,
  kInt64 = 8,
};

// "String", "Binary", ... (the EDM name without the "Edm." prefix).
std::string_view TypeName(Type type);

// A point in time as .NET DateTime ticks: 100 ns intervals since 0001-01-01T00:00:00Z (UTC).
struct DateTime {
  int64_t ticks = 0;

  // Ticks at the Unix epoch, 1970-01-01T00:00:00Z.
  static constexpr int64_t kUnixEpochTicks = 621355968000000000LL;
  // DateTime.MaxValue.Ticks (9999-12-31T23:59:59.9999999Z).
  static constexpr int64_t kMaxTicks = 3155378975999999999LL;
  // Azure Table's lower bound for DateTime properties, 1601-01-01T00:00:00Z.
  static constexpr int64_t kMinAzureTicks = 504911232000000000LL;

  static DateTime FromUnixMicros(int64_t micros) { return DateTime{kUnixEpochTicks + micros * 10}; }
  int64_t ToUnixMicros() const { return (ticks - kUnixEpochTicks) / 10; }

  // Parses ISO 8601 UTC: "YYYY-MM-DDTHH:MM:SS[.fffffff]Z" (up to 7 fractional digits; a missing
  // "Z" or an explicit "+00:00" offset is accepted as UTC). Other offsets are applied.
  static Result<DateTime> Parse(std::string_view text);
  // "YYYY-MM-DDTHH:MM:SS.fffffffZ", always 7 fractional digits: the form of Azure's Timestamp and
  // ETag, and of the times of stored access policies.
  std::string ToString() const;
  // The same without the fraction's trailing zeros, and without a fraction for a whole second
  // ("2020-09-17T00:00:00.99999Z", "2020-09-17T00:00:00Z"): the form in which Azure Table returns
  // a DateTime property's value. Parse reads both forms back to the same ticks.
  std::string ToStringTrimmed() const;

  friend bool operator==(DateTime a, DateTime b) { return a.ticks == b.ticks; }
  friend bool operator<(DateTime a, DateTime b) { return a.ticks < b.ticks; }
};

// A 128-bit GUID, stored as the 16 bytes of its canonical text form read left to right.
struct Guid {
  std::array<uint8_t, 16> bytes{};

  // Parses "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (hex digits of either case; braces allowed).
  static Result<Guid> Parse(std::string_view text);
  // Lower-case canonical form.
  std::string ToString() const;

  friend bool operator==(const Guid& a, const Guid& b) { return a.bytes == b.bytes; }
  friend bool operator<(const Guid& a, const Guid& b) { return a.bytes < b.bytes; }
};

// Raw bytes of a Binary property (distinct from a String to keep the type).
struct Bytes {
  std::string data;
  friend bool operator==(const Bytes& a, const Bytes& b) { return a.data == b.data; }
  friend bool operator<(const Bytes& a, const Bytes& b) { return a.data < b.data; }
};

class Value {
 public:
  // An empty String.
  Value() noexcept : type_(Type::kString) { new (&str_) std::string(); }
  Value(const Value& other);
  Value(Value&& other) noexcept;
  Value& operator=(const Value& other);
  Value& operator=(Value&& other) noexcept;
  ~Value() {
    if (holds_string()) str_.~basic_string();
  }

  static Value String(std::string v) { return Value(Type::kString, std::move(v)); }
  static Value Binary(std::string bytes) { return Value(Type::kBinary, std::move(bytes)); }
  static Value Boolean(bool v) {
    Value out(Type::kBoolean);
    out.scalar_.boolean = v;
    return out;
  }
  static Value DateTime(partkv::DateTime v) {
    Value out(Type::kDateTime);
    out.scalar_.datetime = v;
    return out;
  }
  static Value Double(double v) {
    Value out(Type::kDouble);
    out.scalar_.real = v;
    return out;
  }
  static Value Guid(const partkv::Guid& v) {
    Value out(Type::kGuid);
    out.scalar_.guid = v;
    return out;
  }
  static Value Int32(int32_t v) {
    Value out(Type::kInt32);
    out.scalar_.int32 = v;
    return out;
  }
  static Value Int64(int64_t v) {
    Value out(Type::kInt64);
    out.scalar_.int64 = v;
    return out;
  }

  Type type() const { return type_; }

  // Typed accessors. REQUIRES: type() is the accessor's type.
  const std::string& as_string() const { return str_; }
  const std::string& as_binary() const { return str_; }
  bool as_bool() const { return scalar_.boolean; }
  partkv::DateTime as_datetime() const { return scalar_.datetime; }
  double as_double() const { return scalar_.real; }
  const partkv::Guid& as_guid() const { return scalar_.guid; }
  int32_t as_int32() const { return scalar_.int32; }
  int64_t as_int64() const { return scalar_.int64; }

  // A readable rendering for messages and debugging: 'text', X'0aff', 30, 30L, 1.5, true,
  // datetime'...', guid'...' (the OData literal forms).
  std::string DebugString() const;

  // Equal when the types are equal and the values are equal (Doubles compare bitwise, so a NaN
  // equals the same NaN: this is value identity, not filter semantics).
  friend __attribute__((visibility("default"))) bool operator==(const Value& a, const Value& b);
  friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

 private:
  friend class engine::ValueCodecAccess;

  // A tagged union rather than a std::variant: a query decodes and destroys millions of values,
  // and the tag test is cheaper than the variant's visitation for every construction, move and
  // destruction.
  Value(Type type, std::string s) noexcept : type_(type) { new (&str_) std::string(std::move(s)); }
  // A scalar type; the caller sets the member.
  explicit Value(Type scalar) noexcept : type_(scalar), scalar_() {}

  bool holds_string() const { return type_ == Type::kString || type_ == Type::kBinary; }

  // Every non-string type. Trivially copyable: copying it copies whichever member is active.
  union Scalar {
    Scalar() : int64(0) {}
    bool boolean;
    partkv::DateTime datetime;
    double real;
    partkv::Guid guid;
    int32_t int32;
    int64_t int64;
  };

  Type type_;
  union {
    std::string str_;  // kString and kBinary
    Scalar scalar_;    // every other type
  };
};

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_VALUE_H_
