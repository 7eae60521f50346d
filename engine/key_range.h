// KeyRange: a range of keys (PartitionKeys, RowKeys or encoded keys) between two optional
// bounds, and the engine's one home of key-bound arithmetic: tightening, emptiness, membership,
// the successor of a key and the end of a prefix. A bound is the public partkv::Bound
// (partkv/query.h): a key and whether the key itself is in range. Keys compare as bytes
// (unsigned), which for UTF-8 is code-point order: Azure Table's ordinal order.
//
// Plain values; thread-compatible.

#ifndef PARTKV_ENGINE_KEY_RANGE_H_
#define PARTKV_ENGINE_KEY_RANGE_H_

#include <optional>
#include <string>
#include <string_view>

#include "partkv/query.h"

namespace partkv::engine {

struct KeyRange {
  std::optional<Bound> lower, upper;  // absent: unbounded on that side

  // Whether `key` lies within both bounds.
  bool Contains(std::string_view key) const;
  // Whether no key can lie within both bounds (lower above upper, or equal and not both
  // inclusive).
  bool Empty() const;
  // Keep the tighter of the present bound and `b`: the larger lower bound, the smaller upper
  // bound; at equal keys the exclusive one.
  void TightenLower(const Bound& b);
  void TightenUpper(const Bound& b);
  // Both, from another range.
  void Intersect(const KeyRange& other);
};

// The immediate successor of `s` in byte order: s + 0x00.
inline std::string Successor(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 1);
  out.append(s);
  out.push_back('\0');
  return out;
}

// The smallest string greater than every string with prefix `p`, or "" when there is none (p is
// empty or all 0xFF).
std::string PrefixEnd(std::string_view p);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_KEY_RANGE_H_
