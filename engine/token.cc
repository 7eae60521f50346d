#include "engine/token.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "partkv/base64.h"

namespace partkv::engine {
namespace {

constexpr size_t kMacBytes = 16;
constexpr size_t kMaxTokenChars = 8192;

std::string Mac(std::string_view secret, std::string_view payload) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(payload.data()), payload.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), kMacBytes);
}

Status Bad(const std::string& why) {
  return Status::InvalidArgument("invalid continuation token: " + why);
}

}  // namespace

std::string EncodeToken(std::string_view secret, const TokenContents& c) {
  std::string payload;
  payload.push_back(static_cast<char>(kTokenVersion));
  payload.push_back(static_cast<char>(c.flags));
  for (int i = 0; i < 8; ++i) payload.push_back(static_cast<char>(c.fingerprint >> (8 * i)));
  uint64_t n = c.resume_key.size();
  while (n >= 0x80) {
    payload.push_back(static_cast<char>(n | 0x80));
    n >>= 7;
  }
  payload.push_back(static_cast<char>(n));
  payload += c.resume_key;
  return Base64UrlEncode(payload + Mac(secret, payload));
}

Result<TokenContents> DecodeToken(std::string_view secret, std::string_view token,
                                  uint64_t expected_fingerprint) {
  if (token.size() > kMaxTokenChars)
    return Bad("longer than " + std::to_string(kMaxTokenChars) + " characters");
  auto raw = Base64UrlDecode(token);
  if (!raw.ok()) return Bad("not base64url (" + std::string(raw.status().message()) + ")");
  const std::string& bytes = *raw;
  if (bytes.size() < 2 + 8 + 1 + kMacBytes) return Bad("truncated");
  std::string_view payload(bytes.data(), bytes.size() - kMacBytes);
  std::string mac = Mac(secret, payload);
  if (CRYPTO_memcmp(mac.data(), bytes.data() + payload.size(), kMacBytes) != 0) {
    return Bad("checksum mismatch: the token was altered, forged or issued by another store");
  }
  if (static_cast<uint8_t>(payload[0]) != kTokenVersion) {
    return Bad("unknown token version " + std::to_string(static_cast<uint8_t>(payload[0])));
  }
  TokenContents c;
  c.flags = static_cast<uint8_t>(payload[1]);
  for (int i = 0; i < 8; ++i) {
    c.fingerprint |= static_cast<uint64_t>(static_cast<uint8_t>(payload[2 + i])) << (8 * i);
  }
  if (c.fingerprint != expected_fingerprint) {
    return Bad(
        "it belongs to a different query (table, key conditions, filter, select and order "
        "must match the query that returned it)");
  }
  size_t pos = 10;
  uint64_t len = 0;
  for (int shift = 0;; shift += 7) {
    if (pos >= payload.size() || shift > 28) return Bad("malformed resume key length");
    uint8_t b = static_cast<uint8_t>(payload[pos++]);
    len |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) break;
  }
  if (len != payload.size() - pos) return Bad("resume key length does not match");
  c.resume_key.assign(payload.data() + pos, len);
  return c;
}

}  // namespace partkv::engine
