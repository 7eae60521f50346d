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
#include <string>
#include <string_view>
#include <variant>

#include "partkv/result.h"

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

  static DateTime FromUnixMicros(int64_t micros) {
    return DateTime{kUnixEpochTicks + micros * 10};
  }
  int64_t ToUnixMicros() const { return (ticks - kUnixEpochTicks) / 10; }

  // Parses ISO 8601 UTC: "YYYY-MM-DDTHH:MM:SS[.fffffff]Z" (up to 7 fractional digits; a missing
  // "Z" or an explicit "+00:00" offset is accepted as UTC). Other offsets are applied.
  static Result<DateTime> Parse(std::string_view text);
  // "YYYY-MM-DDTHH:MM:SS.fffffffZ", always 7 fractional digits (Azure's wire form).
  std::string ToString() const;

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
  Value() = default;

  static Value String(std::string v) { return Value(Rep(std::in_place_index<0>, std::move(v))); }
  static Value Binary(std::string bytes) {
    return Value(Rep(std::in_place_index<1>, Bytes{std::move(bytes)}));
  }
  static Value Boolean(bool v) { return Value(Rep(std::in_place_index<2>, v)); }
  static Value DateTime(partkv::DateTime v) { return Value(Rep(std::in_place_index<3>, v)); }
  static Value Double(double v) { return Value(Rep(std::in_place_index<4>, v)); }
  static Value Guid(const partkv::Guid& v) { return Value(Rep(std::in_place_index<5>, v)); }
  static Value Int32(int32_t v) { return Value(Rep(std::in_place_index<6>, v)); }
  static Value Int64(int64_t v) { return Value(Rep(std::in_place_index<7>, v)); }

  Type type() const { return static_cast<Type>(rep_.index() + 1); }

  // Typed accessors. REQUIRES: type() is the accessor's type.
  const std::string& as_string() const { return std::get<0>(rep_); }
  const std::string& as_binary() const { return std::get<1>(rep_).data; }
  bool as_bool() const { return std::get<2>(rep_); }
  partkv::DateTime as_datetime() const { return std::get<3>(rep_); }
  double as_double() const { return std::get<4>(rep_); }
  const partkv::Guid& as_guid() const { return std::get<5>(rep_); }
  int32_t as_int32() const { return std::get<6>(rep_); }
  int64_t as_int64() const { return std::get<7>(rep_); }

  // A readable rendering for messages and debugging: 'text', X'0aff', 30, 30L, 1.5, true,
  // datetime'...', guid'...' (the OData literal forms).
  std::string DebugString() const;

  // Equal when the types are equal and the values are equal (Doubles compare bitwise, so a NaN
  // equals the same NaN: this is value identity, not filter semantics).
  friend bool operator==(const Value& a, const Value& b);
  friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

 private:
  // The alternative order mirrors Type (index + 1 == Type).
  using Rep = std::variant<std::string, Bytes, bool, partkv::DateTime, double, partkv::Guid,
                           int32_t, int64_t>;
  explicit Value(Rep rep) : rep_(std::move(rep)) {}

  Rep rep_;
};

}  // namespace partkv

#endif  // PARTKV_VALUE_H_
