// partkv::KeyStrategy — how an application derives a PartitionKey or RowKey from an entity's own
// properties, as a value rather than a recipe: synthetic keys by concatenation, write sharding by
// a random or a computed suffix 1..N, MD5-bit buckets, and ascending / descending time row keys.
// docs/keys.md is the reference for every strategy's text form and computation, with the worked
// examples of the guides they come from.
//
// Every strategy has a canonical text form, so it can be stored in the catalog and typed on the
// command line; Parse() is its inverse:
//
//   concat(FIELD,FIELD,...,sep=-)                        abc-123 + 2018      -> abc-123-2018
//   random-suffix(FIELD,N)                               2018-08-09          -> 2018-08-09.1..N
//   hash-suffix(FIELD,SOURCE,N,hash=xxh3|md5|codepoint-product)              -> 2018-08-09.17
//   md5-bits(FIELD,K)                                    K first bits of MD5 -> 0110
//   asc-ticks(FIELD)                                     DateTime ticks      -> 0636693696000000000
//   desc-ticks(FIELD)                                    MaxValue - ticks    -> 2518685279999999999
//   FIELD                                                the same as concat(FIELD)
//
// FIELD and SOURCE name properties (Azure property-name rules: [A-Za-z_][A-Za-z0-9_]*, at most
// 255 characters); "PartitionKey" and "RowKey" name the entity's keys. A field's value becomes text
// as follows: String as is; Int32/Int64 in decimal; Guid in lower-case canonical form; Boolean as
// true/false; Double in the shortest text that round-trips (NaN and infinities are rejected);
// DateTime as its ticks for asc-ticks/desc-ticks and as DateTime::ToString() elsewhere. A Binary
// value or a missing field (an empty PartitionKey or RowKey counts as missing) is an
// InvalidArgument naming the field and the strategy.
//
// The computed keys are not validated against a table's limits here (length, forbidden characters
// such as '/'); the store does that when the entity is written.
//
// Factories may build invalid values (an N of 0, a bad field name): Validate() says why, and
// Parse() and Compute() call it. A KeyStrategy is a plain copyable value; distinct objects may be
// used from distinct threads, and const methods may be called concurrently (the random source of
// Compute() and UniqueRowSuffix() is thread-local).

#ifndef PARTKV_KEYS_H_
#define PARTKV_KEYS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "partkv/entity.h"
#include "partkv/result.h"
#include "partkv/status.h"
#include "partkv/value.h"

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

// How HashSuffix turns its source value into a suffix 1..N. The text names ("xxh3", "md5",
// "codepoint-product") are stored in catalogs: never rename them.
enum class SuffixHash : uint8_t {
  kXxh3,              // XXH3_64bits(UTF-8 bytes) mod N + 1 (fast, well spread; the default)
  kMd5,               // first 8 bytes of MD5(UTF-8 bytes), big-endian, mod N + 1
  kCodepointProduct,  // (product of the Unicode code points) mod N + 1, the DynamoDB guide's
                      // example
};

// "xxh3", "md5" or "codepoint-product".
std::string_view SuffixHashName(SuffixHash hash);

class KeyStrategy {
 public:
  enum class Kind : uint8_t {
    kConcat,
    kRandomSuffix,
    kHashSuffix,
    kMd5Bits,
    kAscendingTicks,
    kDescendingTicks,
  };

  // The largest N of RandomSuffix / HashSuffix. A read of a sharded key fans out to all N
  // suffixes, so N bounds the cost of every such read; the guides use 200-400.
  static constexpr uint32_t kMaxShards = 65535;
  // MD5 has 128 bits.
  static constexpr uint32_t kMaxMd5Bits = 128;
  // Concat takes 1..kMaxConcatFields fields.
  static constexpr size_t kMaxConcatFields = 16;
  // A Concat separator is 0..kMaxSeparatorLength printable ASCII characters, none of
  // space , ( ) = / \ # ? (the text form or Azure's key rules would not survive them).
  static constexpr size_t kMaxSeparatorLength = 8;
  // The separator between a sharded key's base and its suffix: "2018-08-09" + "." + "17".
  static constexpr char kSuffixSeparator = '.';

  // The field values joined by `separator`: deviceId "abc-123", year 2018 -> "abc-123-2018".
  static KeyStrategy Concat(std::vector<std::string> fields, std::string separator = "-");
  // base + "." + a uniformly random suffix 1..n: "2018-08-09.1" ... "2018-08-09.400".
  static KeyStrategy RandomSuffix(std::string base_field, uint32_t n);
  // base + "." + a suffix 1..n computed from the source field (a VIN, an OrderId), so that a
  // point read by the natural attributes knows its shard.
  static KeyStrategy HashSuffix(std::string base_field, std::string source_field, uint32_t n,
                                SuffixHash hash = SuffixHash::kXxh3);
  // The first k bits of MD5(source value) as '0'/'1' characters: 2^k buckets.
  static KeyStrategy Md5Bits(std::string source_field, uint32_t k);
  // The DateTime field's ticks, 19 digits: ascending scans are oldest-first.
  static KeyStrategy AscendingTicks(std::string field);
  // DateTime.MaxValue.Ticks - ticks, 19 digits: ascending scans are newest-first.
  static KeyStrategy DescendingTicks(std::string field);

  // Parses a text form (see the top of this file). Whitespace around the name and arguments is
  // tolerated; `sep=` and `hash=` are optional named last arguments. A text without '(' is a
  // property name alone and parses as concat(NAME) with the default separator ("orderDate" ==
  // "concat(orderDate)"), except a form's own name ("concat", "md5-bits", ...), which is refused
  // as missing its arguments. Returns InvalidArgument, whose message says what was wrong and lists
  // the accepted forms, for an unknown form, a wrong number of arguments, a bad field name, N or K
  // out of range, or an unknown hash.
  static Result<KeyStrategy> Parse(std::string_view text);
  // The canonical text form, with every named argument spelled out:
  // "concat(deviceId,year,sep=-)", "hash-suffix(date,OrderId,200,hash=xxh3)".
  // Parse(ToString()) == *this for every valid strategy.
  std::string ToString() const;

  Kind kind() const { return kind_; }
  // The property names the strategy reads, in argument order: Concat's fields; RandomSuffix's
  // base; HashSuffix's base then source; Md5Bits' source; the ticks strategies' field.
  const std::vector<std::string>& fields() const { return fields_; }
  // Concat's separator; empty for the other kinds.
  const std::string& separator() const { return separator_; }
  // HashSuffix's hash; kXxh3 for the other kinds.
  SuffixHash hash() const { return hash_; }
  // Md5Bits' k; 0 for the other kinds.
  uint32_t bits() const { return kind_ == Kind::kMd5Bits ? count_ : 0; }

  // OK, or InvalidArgument naming the first thing wrong (field names, N, k, separator).
  Status Validate() const;

  // The key for an entity's properties. RandomSuffix draws its suffix from a thread-local
  // generator. Returns InvalidArgument when Validate() fails, a field is missing, or a
  // value cannot form a key (Binary; a non-finite Double; a non-DateTime or out-of-range value
  // for the ticks strategies), and InvalidArgument when MD5 is unavailable in this OpenSSL.
  Result<std::string> Compute(const Entity& entity) const;
  // As Compute(entity), but RandomSuffix takes its suffix from `random` (any 64-bit value) by
  // Lemire's multiply-shift reduction: suffix = ((random * n) >> 64) + 1, so equal inputs give
  // equal keys. The other kinds ignore `random`.
  Result<std::string> Compute(const Entity& entity, uint64_t random) const;

  // True for RandomSuffix and HashSuffix, whose keys are base + "." + suffix.
  bool is_sharded() const { return kind_ == Kind::kRandomSuffix || kind_ == Kind::kHashSuffix; }
  // N for the sharded kinds; 1 for the others (their key is their one shard).
  uint32_t shard_count() const { return is_sharded() ? count_ : 1; }
  // Every key a sharded read of `base` must visit, in suffix order: base.1, base.2, ...,
  // base.N. For a non-sharded strategy, just {base}. Empty when N is 0 (invalid).
  std::vector<std::string> ShardKeys(std::string_view base) const;
  // The part of the key before the suffix (the base field's text) for the sharded kinds; the
  // whole key for the others, so that ShardKeys(ComputeBase(e)) always lists every key the
  // entity may have. Errors as for Compute().
  Result<std::string> ComputeBase(const Entity& entity) const;

  friend __attribute__((visibility("default"))) bool operator==(const KeyStrategy& a,
                                                                const KeyStrategy& b);
  friend bool operator!=(const KeyStrategy& a, const KeyStrategy& b) { return !(a == b); }

 private:
  KeyStrategy(Kind kind, std::vector<std::string> fields, std::string separator, uint32_t count,
              SuffixHash hash)
      : kind_(kind),
        fields_(std::move(fields)),
        separator_(std::move(separator)),
        count_(count),
        hash_(hash) {}

  Result<std::string> ComputeWith(const Entity& entity, const uint64_t* random) const;

  Kind kind_;
  std::vector<std::string> fields_;
  std::string separator_;  // Concat only
  uint32_t count_;         // N (sharded kinds) or k (Md5Bits); 0 otherwise
  SuffixHash hash_;        // HashSuffix only
};

// The ticks of `t`, zero-padded to 19 digits, so that byte order is time order:
// 2018-08-09T00:00:00Z -> "0636693696000000000". REQUIRES: 0 <= t.ticks <= DateTime::kMaxTicks
// (values outside are clamped into that range, so the result always has 19 digits).
std::string AscendingTicksKey(DateTime t);
// DateTime::kMaxTicks - t.ticks (3155378975999999999 - ticks), zero-padded to 19 digits, so that
// an ascending scan lists the newest first. REQUIRES and clamping as for AscendingTicksKey.
std::string DescendingTicksKey(DateTime t);
// The DateTime of a ticks key: exactly 19 digits, optionally followed by a non-digit and anything
// after it (a unique-row suffix such as "_k3x9q0zb"). InvalidArgument for anything else or for a
// value above DateTime::kMaxTicks.
Result<DateTime> ParseAscendingTicksKey(std::string_view key);
Result<DateTime> ParseDescendingTicksKey(std::string_view key);

// The first k bits of MD5(input) as '0'/'1' characters, most significant bit of digest byte 0
// first (the order of the hex digest read left to right): MD5("abc") = 90 01 ... and k = 12 gives
// "100100000000". This is GetHashMD5Binary(input, k) of the AtContent article; docs/keys.md
// explains the bit order. InvalidArgument for k outside 1..128 or when MD5 is unavailable.
Result<std::string> Md5BinaryString(std::string_view input, uint32_t k);
// XXH3_64bits(bytes) mod n + 1, in 1..n. Returns 0 when n is 0.
uint32_t Xxh3Suffix(std::string_view bytes, uint32_t n);
// The first 8 bytes of MD5(bytes) read big-endian, mod n + 1, in 1..n. InvalidArgument for n of 0
// or when MD5 is unavailable.
Result<uint32_t> Md5Suffix(std::string_view bytes, uint32_t n);
// (Product of the Unicode code points of the UTF-8 text) mod n + 1, in 1..n, computed modulo n at
// each step so it never overflows (the same number). A byte that is not part of a well-formed
// UTF-8 sequence counts as a code point of its own byte value; the empty text's product is 1.
// Returns 0 when n is 0.
uint32_t CodepointProductSuffix(std::string_view utf8, uint32_t n);
// `length` random characters from [0-9a-z] (thread-local generator), to append to a row key
// that may collide, e.g. DescendingTicksKey(t) + "_" + UniqueRowSuffix().
std::string UniqueRowSuffix(size_t length = 8);

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_KEYS_H_
