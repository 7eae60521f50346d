// Shared Key authorization of the Table service, as Microsoft's "Authorize with Shared Key"
// documents it: the string a request's signature is computed over, the HMAC-SHA256 that signs
// it, the Authorization header, and the RFC 1123 dates that requests carry in x-ms-date. One
// implementation for both sides: `partkv serve` verifies signatures with it and the remote
// backend signs its requests with it.
//
// The Table service knows two schemes, and neither signs any x-ms- header or query parameter
// other than comp (unlike Blob and Queue):
//
//   SharedKey      VERB \n Content-MD5 \n Content-Type \n Date \n CanonicalizedResource
//   SharedKeyLite  Date \n CanonicalizedResource
//
// Date is the x-ms-date header's value, or the Date header's when there is no x-ms-date; an
// absent Content-MD5 or Content-Type is the empty string. CanonicalizedResource is "/", the
// account name, the request's path exactly as sent (still percent-encoded), then "?comp=" and
// the comp parameter's value when the query has one. A path-style endpoint (the emulator's
// http://127.0.0.1:10002/devstoreaccount1) has the account in its path too, so its resources
// name it twice: "/devstoreaccount1/devstoreaccount1/Tables".
//
// The signature is the base64 of HMAC-SHA256 keyed with the decoded account key, and the header
// is "Authorization: SharedKey account:signature" (or SharedKeyLite).
//
// All functions are pure and thread-safe; an HmacSha256 may be used by any number of threads.

#ifndef PARTKV_ENGINE_PROTOCOL_SHARED_KEY_H_
#define PARTKV_ENGINE_PROTOCOL_SHARED_KEY_H_

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "partkv/result.h"

typedef struct evp_mac_ctx_st EVP_MAC_CTX;  // OpenSSL's, kept out of the includers

namespace partkv::protocol {

enum class SharedKeyScheme { kSharedKey, kSharedKeyLite };

// "SharedKey" or "SharedKeyLite": the scheme's name in the Authorization header.
std::string_view SchemeName(SharedKeyScheme scheme);

// HMAC-SHA256 keyed with one account key, prepared once: keying costs as much as signing a
// request. Movable, not copyable. Sign is thread-safe: each call signs with its own duplicate
// of the prepared context (EVP_MAC_CTX_dup), which only reads the original.
class HmacSha256 {
 public:
  // `key` is the raw key bytes (an account key decoded from base64). InvalidArgument when it is
  // empty; IOError when OpenSSL offers no HMAC-SHA256.
  static Result<HmacSha256> Create(std::string key);

  HmacSha256(HmacSha256&&) noexcept;
  HmacSha256& operator=(HmacSha256&&) noexcept;
  ~HmacSha256();

  // Base64 (standard alphabet, padded) of HMAC-SHA256(key, message). Should OpenSSL fail to
  // duplicate the prepared context, the one-shot HMAC gives the same signature, only slower.
  std::string Sign(std::string_view message) const;

 private:
  struct ContextDeleter {
    void operator()(EVP_MAC_CTX* ctx) const;
  };
  HmacSha256() = default;

  std::string key_;                                     // for the one-shot fallback
  std::unique_ptr<EVP_MAC_CTX, ContextDeleter> keyed_;  // only ever duplicated, never used itself
};

// Whether two signatures are equal, in time that depends on their length only (so a forger
// learns nothing from how long a comparison took).
bool SignaturesEqual(std::string_view a, std::string_view b);

// "/" + account + raw_path, then "?comp=" + *comp when the request's query has a comp parameter
// (its decoded value; an empty value still counts). `raw_path` is the request target's path as
// sent, percent-encoded, starting with '/'.
std::string CanonicalizedResource(std::string_view account, std::string_view raw_path,
                                  std::optional<std::string_view> comp);

// The SharedKey string to sign: verb (as on the request line), Content-MD5 and Content-Type
// header values ("" when absent), the date (x-ms-date, else Date) and the canonicalized
// resource, joined by "\n".
std::string SharedKeyStringToSign(std::string_view verb, std::string_view content_md5,
                                  std::string_view content_type, std::string_view date,
                                  std::string_view resource);

// The SharedKeyLite string to sign: date + "\n" + resource.
std::string SharedKeyLiteStringToSign(std::string_view date, std::string_view resource);

// The Authorization header's value: "SharedKey account:signature" (or SharedKeyLite).
std::string AuthorizationHeader(SharedKeyScheme scheme, std::string_view account,
                                std::string_view signature);

// `when` in RFC 1123 form, always in GMT and English whatever the locale, truncated to the
// second: "Tue, 01 Dec 2026 08:00:00 GMT".
std::string FormatHttpDate(std::chrono::system_clock::time_point when);

// Reads an RFC 1123 date as FormatHttpDate writes it (RFC 9110's IMF-fixdate): a three-letter
// English day and month name with their case, a two-digit day, a four-digit year, a 24-hour
// time and "GMT". The day name must be the date's own and the date must exist; a seconds field
// of 60 (a leap second) is read as the next second. InvalidArgument naming what is wrong for
// anything else, the other forms HTTP once allowed (RFC 850, asctime) included, and for a year
// the system clock cannot hold (it counts nanoseconds in 64 bits: about 1678 to 2261).
Result<std::chrono::system_clock::time_point> ParseHttpDate(std::string_view text);

}  // namespace partkv::protocol

#endif  // PARTKV_ENGINE_PROTOCOL_SHARED_KEY_H_
