// The order-preserving key encoding of an entity's (PartitionKey, RowKey) inside a physical
// partition's column family (docs/format.md "Entity keys").
//
//   key = escape(PartitionKey) 0x00 RowKey
//   escape: every 0x00 byte becomes 0x00 0xFF (the FoundationDB tuple rule)
//
// Byte-wise comparison of encoded keys orders entities by (PartitionKey, RowKey) as byte strings,
// and every key of one PartitionKey shares the prefix escape(PartitionKey) 0x00, so a partition
// is one contiguous range. The RowKey is the unescaped tail: nothing follows it.

#ifndef PARTKV_ENGINE_KEY_CODEC_H_
#define PARTKV_ENGINE_KEY_CODEC_H_

#include <string>
#include <string_view>

#include "partkv/status.h"

namespace partkv::engine {

// Appends escape(pk) 0x00 to *out: the prefix shared by every key of partition `pk`.
void AppendPartitionPrefix(std::string_view pk, std::string* out);

// Appends the full key of (pk, rk) to *out.
inline void AppendEntityKey(std::string_view pk, std::string_view rk, std::string* out) {
  AppendPartitionPrefix(pk, out);
  out->append(rk.data(), rk.size());
}

inline std::string EntityKey(std::string_view pk, std::string_view rk) {
  std::string out;
  out.reserve(pk.size() + rk.size() + 1);
  AppendEntityKey(pk, rk, &out);
  return out;
}

// The smallest key greater than every key of partition `pk`: escape(pk) 0x00 0xFF. (A RowKey is
// UTF-8, so it never starts with 0xFF; and 0x00 0xFF is where the keys of a longer PartitionKey
// pk + "\0" + ... begin.)
std::string PartitionEnd(std::string_view pk);

// Splits an encoded key back into (pk, rk). Corruption when the key has no terminator or an
// invalid escape.
Status DecodeEntityKey(std::string_view key, std::string* pk, std::string* rk);

// The length of the partition prefix escape(pk) 0x00 at the start of `key`, or 0 when the key
// is malformed. The RowKey is key.substr(result).
size_t PartitionPrefixLength(std::string_view key);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_KEY_CODEC_H_
