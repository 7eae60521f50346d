// Base64 encoding and strict decoding for the two RFC 4648 alphabets.

#include "partkv/base64.h"

#include <array>
#include <cstdint>

namespace partkv {
namespace {

constexpr std::string_view kStdAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrlAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

constexpr int8_t kInvalid = -1;

constexpr std::array<int8_t, 256> MakeDecodeTable(std::string_view alphabet) {
  std::array<int8_t, 256> table{};
  for (auto& v : table) v = kInvalid;
  for (size_t i = 0; i < alphabet.size(); ++i) {
    table[static_cast<unsigned char>(alphabet[i])] = static_cast<int8_t>(i);
  }
  return table;
}

constexpr std::array<int8_t, 256> kStdDecode = MakeDecodeTable(kStdAlphabet);
constexpr std::array<int8_t, 256> kUrlDecode = MakeDecodeTable(kUrlAlphabet);

std::string Encode(std::string_view bytes, std::string_view alphabet, bool pad) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16 | static_cast<uint8_t>(bytes[i + 1]) << 8 |
                 static_cast<uint8_t>(bytes[i + 2]);
    out += alphabet[n >> 18];
    out += alphabet[n >> 12 & 63];
    out += alphabet[n >> 6 & 63];
    out += alphabet[n & 63];
  }
  size_t rest = bytes.size() - i;
  if (rest == 0) return out;
  uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
  if (rest == 2) n |= static_cast<uint8_t>(bytes[i + 1]) << 8;
  out += alphabet[n >> 18];
  out += alphabet[n >> 12 & 63];
  if (rest == 2) out += alphabet[n >> 6 & 63];
  if (pad) out.append(rest == 1 ? 2 : 1, '=');
  return out;
}

Status Bad(std::string_view what, size_t offset) {
  return Status::InvalidArgument("invalid base64: " + std::string(what) + " at offset " +
                                 std::to_string(offset));
}

// Decodes `text`, which holds no padding. A final group of 1 character cannot come from any
// encoder; groups of 2 and 3 characters must leave their unused low bits zero.
Result<std::string> DecodeUnpadded(std::string_view text, const std::array<int8_t, 256>& table) {
  if (text.size() % 4 == 1) return Bad("truncated final group", text.size() - 1);
  std::string out;
  out.reserve(text.size() / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    int8_t v = table[static_cast<unsigned char>(text[i])];
    if (v == kInvalid) {
      return text[i] == '=' ? Bad("unexpected padding", i) : Bad("invalid character", i);
    }
    acc = (acc << 6 | static_cast<uint32_t>(v)) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>(acc >> bits & 0xff);
    }
  }
  if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) {
    return Bad("nonzero unused bits in the last character", text.size() - 1);
  }
  return out;
}

}  // namespace

std::string Base64Encode(std::string_view bytes) { return Encode(bytes, kStdAlphabet, true); }

std::string Base64UrlEncode(std::string_view bytes) { return Encode(bytes, kUrlAlphabet, false); }

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return Bad("length not a multiple of 4", text.size());
  size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') {
    ++padding;
  }
  return DecodeUnpadded(text.substr(0, text.size() - padding), kStdDecode);
}

Result<std::string> Base64UrlDecode(std::string_view text) {
  return DecodeUnpadded(text, kUrlDecode);
}

}  // namespace partkv
