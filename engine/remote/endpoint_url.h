// The URL half of reading a remote location (connection_string.h): endpoint URLs (a
// TableEndpoint, a DevelopmentStorageProxyUri, the endpoint computed from EndpointSuffix, a SAS
// URL) parsed into an Endpoint, SAS checks, and the redaction of a URL's secrets. Internal to
// engine/remote/: the rules are connection_string.h's "URLs" paragraph.
//
// Every error is InvalidArgument; `what` names the value in it ("TableEndpoint"). A URL is shown
// in a message only through Redact (connection_string.h), so no message holds a signature.
//
// All functions are pure and thread-safe.

#ifndef PARTKV_ENGINE_REMOTE_ENDPOINT_URL_H_
#define PARTKV_ENGINE_REMOTE_ENDPOINT_URL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/remote/connection_string.h"
#include "partkv/result.h"

namespace partkv::remote {

// What a hidden secret is replaced with in Redact's and RedactUrlSecrets' output.
inline constexpr std::string_view kRedacted = "<redacted>";

// ASCII letters compared without case; other bytes compared as they are.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix);

// An ASCII letter or digit.
bool IsAlnum(char c);

// An account name as it appears in a host's first label or a path segment: 1 to 63 letters,
// digits and '-'. Azure's own are 3 to 24 lowercase letters and digits, Cosmos DB's also hold
// '-'; anything else ('.', '/', '%', ...) would change where requests go.
bool IsAccountName(std::string_view s);

// `text` with the user information of every "scheme://user@host" and the value of every `sig`
// query parameter replaced by kRedacted; the rest as it is.
std::string RedactUrlSecrets(std::string_view text);

// Text that came from a server (an error message, a header, a property name), fit for a message
// of ours: every `sig=` value (wherever it starts, up to a character no signature holds), the
// signature of every "SharedKey account:signature" and "SharedKeyLite account:signature", the
// value of every AccountKey= and SharedAccessSignature= setting, the user information of every
// URL, and every occurrence of each of `secrets` (the caller's own key and SAS, in the forms it
// sends them) replaced by kRedacted; control characters become '?', and the result is cut at
// `max_bytes` (with "…").
std::string RedactServiceText(std::string_view text, const std::vector<std::string>& secrets,
                              size_t max_bytes = 512);

// An absolute http or https URL, split.
struct ParsedUrl {
  std::string scheme;  // lowercase
  std::string host;
  uint16_t port = 0;  // the default when none is written
  bool port_given = false;
  std::string path;  // as written, trailing '/' dropped
  bool has_query = false;
  std::string query;  // without the '?'
};

// Parses an absolute http or https URL; `what` names it in messages ("TableEndpoint").
// InvalidArgument for another scheme or none, whitespace or a control character, a fragment,
// user information, no host, an invalid host or IPv6 address, or a port not 1 to 65535.
Result<ParsedUrl> ParseUrl(std::string_view text, std::string_view what);

// The endpoint (without credentials) that `url`, parsed from `text`, names. `account_name` is
// the AccountName setting, when given; the account the URL names must agree with it.
// InvalidArgument when the URL names no account (an IP address or localhost without a path),
// has more than one path segment, has a path although its host names the account, has a path
// that is not an account name, or names another account than `account_name`.
Result<Endpoint> EndpointOfUrl(const ParsedUrl& url, std::string_view text, std::string_view what,
                               std::optional<std::string_view> account_name);

// OK when `sas` is a SAS: a query holding a non-empty `sig`. InvalidArgument, naming `what`,
// when it is empty, holds whitespace, a control character or '#', or has no `sig`.
Status CheckSas(std::string_view sas, std::string_view what);

}  // namespace partkv::remote

#endif  // PARTKV_ENGINE_REMOTE_ENDPOINT_URL_H_
