// Byte-order comparison of short strings (keys, property names), inline.
//
// Thread-safety: pure functions.

#ifndef PARTKV_ENGINE_COMPARE_KEYS_H_
#define PARTKV_ENGINE_COMPARE_KEYS_H_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace partkv::engine {

// a <=> b in byte order (unsigned), as a negative, zero or positive int: what
// std::string_view::compare gives, compared eight bytes at a time inline rather than by a call to
// memcmp. Merges compare keys several times per row, filters compare property names; both are
// short.
inline int CompareKeys(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (x != y) {
      if constexpr (std::endian::native == std::endian::little) {
        x = __builtin_bswap64(x);
        y = __builtin_bswap64(y);
      }
      return x < y ? -1 : 1;
    }
  }
  for (; i < n; ++i) {
    const auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if (x != y) return x < y ? -1 : 1;
  }
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_COMPARE_KEYS_H_
