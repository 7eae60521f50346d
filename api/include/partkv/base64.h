// Base64 (RFC 4648) in two alphabets: the standard one with '=' padding (§4; Azure's Edm.Binary
// wire form) and the URL- and filename-safe one without padding (§5; for tokens that travel in
// URLs and file names).
//
// Decoding is strict so that every byte string has exactly one accepted encoding: characters
// outside the alphabet (including whitespace and line breaks), a length that no encoder
// produces, misplaced or missing padding, and nonzero unused bits in the last character are all
// InvalidArgument, with the offset of the first offending character in the message.
//
// All functions are pure and thread-safe.

#ifndef PARTKV_BASE64_H_
#define PARTKV_BASE64_H_

#include <string>
#include <string_view>

#include "partkv/result.h"

// Everything declared below is part of libpartkv's ABI (the library is built with hidden
// visibility; engine symbols stay inside it).
#pragma GCC visibility push(default)
namespace partkv {

// Standard alphabet (A-Z a-z 0-9 + /), padded with '=' to a multiple of 4 characters.
std::string Base64Encode(std::string_view bytes);
// The bytes of a padded standard-alphabet encoding. The empty string decodes to no bytes.
Result<std::string> Base64Decode(std::string_view text);

// URL-safe alphabet (A-Z a-z 0-9 - _), no padding.
std::string Base64UrlEncode(std::string_view bytes);
// The bytes of an unpadded URL-safe encoding; '=' is rejected like any other foreign character.
Result<std::string> Base64UrlDecode(std::string_view text);

}  // namespace partkv
#pragma GCC visibility pop

#endif  // PARTKV_BASE64_H_
