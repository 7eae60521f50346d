// Fuzz target: the continuation-token decoder (engine/token.h).
// The first input byte picks a mode:
//   even: the rest is a token from a client, decoded against a fixed store secret: never
//         crashes, every error is InvalidArgument, and a token that decodes is byte for byte
//         the one the store issues for its contents (no forged or malleable token is accepted);
//   odd:  the rest is the contents of a genuine token (flags, fingerprint, resume key); it is
//         sealed, decoded back unchanged, then one character is altered: the altered token must be
//         rejected or decode to exactly the same contents (no forged resume point), and the
//         genuine token is rejected for another query and under another store's secret.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/token.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

constexpr std::string_view kSecret = "0123456789abcdef0123456789abcdef";
constexpr std::string_view kOtherSecret = "fedcba9876543210fedcba9876543210";
constexpr uint64_t kFingerprint = 0x1234'5678'9abc'def0ULL;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace partkv;
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    auto decoded = engine::DecodeToken(kSecret, rest, kFingerprint);
    if (!decoded.ok()) {
      FUZZ_CHECK(decoded.status().IsInvalidArgument());
      return 0;
    }
    // Only a token the store itself issued may decode: exactly these bytes.
    FUZZ_CHECK(decoded->fingerprint == kFingerprint);
    FUZZ_CHECK(engine::EncodeToken(kSecret, *decoded) == rest);
    return 0;
  }
  if (rest.size() < 9) return 0;
  engine::TokenContents c;
  c.flags = static_cast<uint8_t>(rest[0]);
  for (int i = 0; i < 8; ++i) {
    c.fingerprint |= static_cast<uint64_t>(static_cast<uint8_t>(rest[1 + i])) << (8 * i);
  }
  c.resume_key = std::string(rest.substr(9));
  std::string token = engine::EncodeToken(kSecret, c);
  auto back = engine::DecodeToken(kSecret, token, c.fingerprint);
  if (token.size() > 8192) {  // over the decoder's length limit: rejected, never misread
    FUZZ_CHECK(!back.ok() && back.status().IsInvalidArgument());
    return 0;
  }
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(back->flags == c.flags && back->fingerprint == c.fingerprint &&
             back->resume_key == c.resume_key);
  FUZZ_CHECK(!engine::DecodeToken(kSecret, token, c.fingerprint ^ 1).ok());
  FUZZ_CHECK(!engine::DecodeToken(kOtherSecret, token, c.fingerprint).ok());

  size_t pos = c.flags % token.size();
  std::string altered = token;
  altered[pos] = altered[pos] == 'A' ? 'B' : 'A';
  auto forged = engine::DecodeToken(kSecret, altered, c.fingerprint);
  if (forged.ok()) {
    FUZZ_CHECK(forged->flags == c.flags && forged->resume_key == c.resume_key);
  } else {
    FUZZ_CHECK(forged.status().IsInvalidArgument());
  }
  return 0;
}
