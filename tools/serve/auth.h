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

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/protocol/shared_key.h"
#include "partkv/result.h"
#include "partkv/status.h"
#include "tools/serve/errors.h"
#include "tools/serve/http_types.h"
#include "tools/serve/sas.h"

namespace partkv::serve {

inline constexpr char kDevAccountName[] = "devstoreaccount1";
inline constexpr char kDevAccountKey[] =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

// One account: its name and HMAC-SHA256 keyed with its decoded key, prepared once (keying costs
// as much as signing a request).
class Account {
 public:
  // InvalidArgument when the key is empty.
  static Result<Account> Create(std::string name, std::string key);

  const std::string& name() const { return name_; }
  // Signs with the account key (engine/protocol/shared_key.h). Thread-safe.
  const protocol::HmacSha256& signer() const { return signer_; }

 private:
  Account(std::string name, protocol::HmacSha256 signer)
      : name_(std::move(name)), signer_(std::move(signer)) {}

  std::string name_;
  protocol::HmacSha256 signer_;
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
// names (sas.h). At the `secondary` location ("/{account}-secondary/..."), a Shared Key signature
// is over the path without "-secondary" (Azure's rule: the account name is the primary's), or over
// the path as sent (what some SDKs sign for a path-style URL).
AuthResult Authenticate(const HttpRequest& request, const Accounts& accounts,
                        std::string_view account, const PolicyLookup& policies,
                        bool secondary = false);

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_AUTH_H_
