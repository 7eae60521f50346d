#include "engine/key_codec.h"

#include <cstring>

namespace partkv::engine {

void AppendPartitionPrefix(std::string_view pk, std::string* out) {
  // Fast path: keys validated by the default profile never contain 0x00.
  if (std::memchr(pk.data(), 0, pk.size()) == nullptr) {
    out->append(pk.data(), pk.size());
  } else {
    for (char c : pk) {
      out->push_back(c);
      if (c == '\0') out->push_back('\xFF');
    }
  }
  out->push_back('\0');
}

std::string PartitionEnd(std::string_view pk) {
  std::string out;
  AppendPartitionPrefix(pk, &out);
  out.push_back('\xFF');
  return out;
}

size_t PartitionPrefixLength(std::string_view key) {
  size_t i = 0;
  while (true) {
    const void* z = std::memchr(key.data() + i, 0, key.size() - i);
    if (z == nullptr) return 0;
    i = static_cast<const char*>(z) - key.data();
    if (i + 1 < key.size() && static_cast<unsigned char>(key[i + 1]) == 0xFF) {
      i += 2;  // escaped 0x00 inside the PartitionKey
      continue;
    }
    return i + 1;
  }
}

Status DecodeEntityKey(std::string_view key, std::string* pk, std::string* rk) {
  size_t prefix = PartitionPrefixLength(key);
  if (prefix == 0) return Status::Corruption("entity key without a PartitionKey terminator");
  pk->clear();
  for (size_t i = 0; i + 1 < prefix; ++i) {
    pk->push_back(key[i]);
    if (key[i] == '\0') ++i;  // skip the 0xFF of an escape
  }
  rk->assign(key.data() + prefix, key.size() - prefix);
  return Status::OK();
}

}  // namespace partkv::engine
