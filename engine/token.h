// Continuation tokens (docs/tokens.md): where the next page of a query resumes, sealed so that a
// token cannot be forged, replayed against another store, or used with another query.
//
//   payload = version:u8(=1)  flags:u8  fingerprint:fixed64  key_len:varint32  resume_key
//   token   = base64url(payload || HMAC-SHA256(store secret, payload)[0..16))
//
// `fingerprint` is a hash of the query's identity (table id, key conditions, canonical filter,
// select, order, read mode); `resume_key` is the encoded entity key of the last entity the
// previous page examined. The next page resumes strictly after it (before it when descending).

#ifndef PARTKV_ENGINE_TOKEN_H_
#define PARTKV_ENGINE_TOKEN_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "partkv/result.h"

namespace partkv::engine {

inline constexpr uint8_t kTokenVersion = 1;  // persisted in tokens held by clients

struct TokenContents {
  uint8_t flags = 0;
  uint64_t fingerprint = 0;
  std::string resume_key;
};

std::string EncodeToken(std::string_view secret, const TokenContents& contents);

// InvalidArgument naming what is wrong: not base64url, truncated, unknown version, checksum
// mismatch (forged, altered or from another store), or a fingerprint of another query.
Result<TokenContents> DecodeToken(std::string_view secret, std::string_view token,
                                  uint64_t expected_fingerprint);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_TOKEN_H_
