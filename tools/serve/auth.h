// Request authentication (docs/serve.md "Authentication"): SharedKey and SharedKeyLite signatures
// in the Authorization header, or a SAS token in the query (sas.h), against the configured
// accounts. The well-known development account (devstoreaccount1 and its published key) is
// the default.
//
// An unsigned request, a wrong signature, a stale x-ms-date (over 15 minutes off, as Azure), an
// unknown account or an invalid SAS is 403 AuthenticationFailed; nothing is executed for it.
// Accounts is filled before the server starts and only read afterwards, so it is thread-safe.

#ifndef PARTKV_TOOLS_SERVE_AUTH_H_
#define PARTKV_TOOLS_SERVE_AUTH_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/result.h"
#include "partkv/status.h"
#include "tools/serve/errors.h"
#include "tools/serve/http_types.h"
#include "tools/serve/sas.h"

typedef struct evp_mac_ctx_st EVP_MAC_CTX;  // OpenSSL's, kept out of the includers

namespace partkv::serve {

inline constexpr char kDevAccountName[] = "devstoreaccount1";
inline constexpr char kDevAccountKey[] =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

// One account: its name, its decoded key, and HMAC-SHA256 keyed with it, prepared once (keying
// costs as much as signing a request).
class Account {
 public:
  // InvalidArgument when the key is empty.
  static Result<Account> Create(std::string name, std::string key);

  const std::string& name() const { return name_; }
  const std::string& key() const { return key_; }
  // Base64 of HMAC-SHA256(key, message), as HmacSha256Base64. Thread-safe.
  std::string Sign(std::string_view message) const;

 private:
  struct MacDeleter {
    void operator()(EVP_MAC_CTX* ctx) const;
  };
  std::string name_;
  std::string key_;
  std::unique_ptr<EVP_MAC_CTX, MacDeleter> keyed_;  // only ever duplicated, never used itself
};

class Accounts {
 public:
  // Adds an account. InvalidArgument when the name is empty or taken or the key is not base64.
  Status Add(std::string_view name, std::string_view base64_key);
  const Account* Find(std::string_view name) const;
  bool empty() const { return accounts_.empty(); }
  const std::vector<Account>& all() const { return accounts_; }

 private:
  std::vector<Account> accounts_;
};

// The outcome of authenticating one request.
struct AuthResult {
  std::optional<AzureError> error;  // set: refuse with it
  std::optional<SasScope> sas;      // set: the request came with a SAS of this scope
};

// Authenticates `request` for `account`; `policies` finds the stored access policy a table SAS
// names (sas.h).
AuthResult Authenticate(const HttpRequest& request, const Accounts& accounts,
                        std::string_view account, const PolicyLookup& policies);

// Base64 of HMAC-SHA256(key, message): the signature of every scheme.
std::string HmacSha256Base64(std::string_view key, std::string_view message);
// Compares signatures in constant time.
bool SignaturesEqual(std::string_view a, std::string_view b);

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_AUTH_H_
