// The binary encoding of an entity's stored value (docs/format.md "Entity values").
//
//   value    = version:u8(=1) timestamp:fixed64 etag:varint64 count:varint32 property*
//   property = name_len:varint32 name type:u8 payload
//   payload  = String/Binary: len:varint32 bytes | Boolean: u8 (0 or 1) | DateTime: fixed64 ticks
//            | Double: fixed64 IEEE bits | Guid: 16 bytes | Int32: fixed32 | Int64: fixed64
//
// Fixed-width integers are little-endian; varints are LEB128 (7 bits a byte, low first). The
// properties are written in the entity's (sorted) order. Decoding never trusts a length: every
// read is bounds-checked, and any violation (truncation, unknown version or type tag, unsorted or
// duplicate names, a Boolean byte other than 0/1, trailing bytes) is a Corruption status.

#ifndef PARTKV_ENGINE_VALUE_CODEC_H_
#define PARTKV_ENGINE_VALUE_CODEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/entity.h"
#include "partkv/status.h"

namespace partkv::engine {

// Persisted: never change the meaning of an existing version.
inline constexpr uint8_t kValueFormatV1 = 1;

// The system part of a stored value.
struct ValueHeader {
  int64_t timestamp_ticks = 0;
  uint64_t etag_version = 0;
};

// Appends the encoding of `entity`'s properties with `header` to *out.
void EncodeValue(const ValueHeader& header, const Entity& entity, std::string* out);

// Decodes only the header (cheap: for ETag checks).
Status DecodeValueHeader(std::string_view bytes, ValueHeader* header);

// Decodes header and properties into *entity (keys untouched, properties replaced).
Status DecodeValue(std::string_view bytes, ValueHeader* header, Entity* entity);

// Decodes a stored row into *entity, replacing everything in it: the keys from the encoded key
// `key` (whose partition prefix is `prefix_length` bytes long, as PartitionPrefixLength
// returns; 0 when unknown or malformed), Timestamp, ETag and properties from `value`.
// Corruption when either is malformed.
Status DecodeEntity(std::string_view key, size_t prefix_length, std::string_view value,
                    Entity* entity);

// A value as stored, read in place without copying: String and Binary bytes and a Guid's 16
// bytes are views into the encoded value.
struct ValueView {
  Type type = Type::kString;
  std::string_view bytes;  // String, Binary, Guid
  int64_t integer = 0;     // Boolean (0/1), Int32, Int64, DateTime ticks
  double real = 0;         // Double
};

// The view of a decoded value.
ValueView ViewOf(const Value& value);

// Reads `value`'s header into *header and its property `name` into *found (nullopt when the
// value has none), in place, without decoding the other properties. Corruption when the value is
// malformed up to where `name` is found.
Status FindProperty(std::string_view value, std::string_view name, ValueHeader* header,
                    std::optional<ValueView>* found);

// A stored row (encoded key and value) read in place, for evaluating a query's filter before
// decoding the row: a row the filter rejects is never decoded. Reading stops, and undecided()
// becomes true, at anything it cannot read in place — a malformed value, or a PartitionKey with
// 0x00 bytes (escaped in the key) — and the row must then be decoded, which reports what is wrong.
class EncodedRow {
 public:
  // `prefix_length` as for DecodeEntity.
  EncodedRow(std::string_view key, size_t prefix_length, std::string_view value);

  bool undecided() const { return undecided_; }
  std::string_view partition_key();
  std::string_view row_key() const { return row_key_; }
  int64_t timestamp_ticks() const { return timestamp_ticks_; }
  // Property `name`'s value, or nullopt when the row has none (or is undecided).
  std::optional<ValueView> Find(std::string_view name);

 private:
  std::string_view escaped_pk_, row_key_, properties_;
  uint64_t count_ = 0;
  int64_t timestamp_ticks_ = 0;
  bool undecided_ = false;
};

// Removes every property of *entity whose name is not in `names` (sorted, unique): $select.
void RetainProperties(const std::vector<std::string>& names, Entity* entity);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_VALUE_CODEC_H_
