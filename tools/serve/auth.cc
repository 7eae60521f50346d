// SharedKey / SharedKeyLite authentication (auth.h).

#include "tools/serve/auth.h"

#include <chrono>
#include <optional>

#include "partkv/base64.h"

namespace partkv::serve {
namespace {

// Azure refuses a request whose date is more than 15 minutes off the service's clock.
constexpr std::chrono::minutes kMaxClockSkew{15};

AzureError Refused(std::string_view detail) {
  return MakeError(403, "AuthenticationFailed", detail);
}

}  // namespace

Status Accounts::Add(std::string_view name, std::string_view base64_key) {
  if (name.empty()) return Status::InvalidArgument("account name is empty");
  if (Find(name) != nullptr) {
    return Status::InvalidArgument("account '" + std::string(name) + "' is given twice");
  }
  auto key = Base64Decode(base64_key);
  if (!key.ok() || key->empty()) {
    return Status::InvalidArgument("the key of account '" + std::string(name) +
                                   "' is not base64 (standard alphabet, padded)");
  }
  PARTKV_ASSIGN_OR_RETURN(Account account, Account::Create(std::string(name), std::move(*key)));
  accounts_.push_back(std::move(account));
  return Status::OK();
}

const Account* Accounts::Find(std::string_view name) const {
  for (const Account& a : accounts_) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

Result<Account> Account::Create(std::string name, std::string key) {
  if (key.empty()) return Status::InvalidArgument("the key of account '" + name + "' is empty");
  PARTKV_ASSIGN_OR_RETURN(protocol::HmacSha256 signer,
                          protocol::HmacSha256::Create(std::move(key)));
  return Account(std::move(name), std::move(signer));
}

namespace {

// A secondary location's path with its account's "-secondary" suffix removed:
// "/acct-secondary/Tables" -> "/acct/Tables".
std::string PrimaryPath(std::string_view path) {
  constexpr std::string_view kSecondary = "-secondary";
  size_t end = path.find('/', 1);
  if (end == std::string_view::npos) end = path.size();
  std::string_view account = path.substr(0, end);
  if (!account.ends_with(kSecondary)) return std::string(path);
  return std::string(account.substr(0, account.size() - kSecondary.size())) +
         std::string(path.substr(end));
}

}  // namespace

AuthResult Authenticate(const HttpRequest& request, const Accounts& accounts,
                        std::string_view account_name, const PolicyLookup& policies,
                        bool secondary) {
  AuthResult result;
  const Account* account = accounts.Find(account_name);
  if (account == nullptr) {
    result.error = Refused("no account named '" + std::string(account_name) + "' on this server");
    return result;
  }
  std::string authorization = request.Header("Authorization");
  if (authorization.empty()) {
    if (request.Param("sig") != nullptr) {
      SasScope scope;
      result.error = VerifySas(request, account->name(), account->signer(), policies, &scope);
      if (!result.error) result.sas = std::move(scope);
      return result;
    }
    result.error = Refused("the request has no Authorization header and no SAS token");
    return result;
  }
  size_t space = authorization.find(' ');
  size_t colon = authorization.rfind(':');
  if (space == std::string::npos || colon == std::string::npos || colon < space) {
    result.error = Refused("the Authorization header is not 'SharedKey account:signature'");
    return result;
  }
  std::string scheme = authorization.substr(0, space);
  std::string signer = authorization.substr(space + 1, colon - space - 1);
  std::string signature = authorization.substr(colon + 1);
  const bool lite = scheme == protocol::SchemeName(protocol::SharedKeyScheme::kSharedKeyLite);
  if (!lite && scheme != protocol::SchemeName(protocol::SharedKeyScheme::kSharedKey)) {
    result.error = Refused("unsupported authorization scheme '" + scheme +
                           "' (SharedKey, SharedKeyLite and SAS are supported)");
    return result;
  }
  if (signer != account->name()) {
    result.error = Refused("the request is signed for account '" + signer + "', not '" +
                           account->name() + "'");
    return result;
  }
  std::string date = request.Header("x-ms-date");
  if (date.empty()) date = request.Header("Date");
  auto when = protocol::ParseHttpDate(date);
  if (!when.ok()) {
    result.error = Refused("the request has no valid x-ms-date or Date header");
    return result;
  }
  const auto skew =
      *when - std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  if (skew > kMaxClockSkew || skew < -kMaxClockSkew) {
    result.error = Refused("the request's date '" + date +
                           "' is more than 15 minutes away from the server's clock");
    return result;
  }
  const std::string* comp = request.Param("comp");
  auto string_to_sign = [&](std::string_view path) {
    std::string resource = protocol::CanonicalizedResource(
        account->name(), path, comp ? std::optional<std::string_view>(*comp) : std::nullopt);
    return lite ? protocol::SharedKeyLiteStringToSign(date, resource)
                : protocol::SharedKeyStringToSign(request.verb, request.Header("Content-MD5"),
                                                  request.Header("Content-Type"), date, resource);
  };
  std::string to_sign =
      string_to_sign(secondary ? PrimaryPath(request.raw_path) : request.raw_path);
  bool signed_right = protocol::SignaturesEqual(signature, account->signer().Sign(to_sign));
  if (!signed_right && secondary) {
    signed_right = protocol::SignaturesEqual(
        signature, account->signer().Sign(string_to_sign(request.raw_path)));
  }
  if (!signed_right) {
    result.error = Refused("the " + scheme + " signature does not match; the server signed '" +
                           to_sign + "' (newlines as they are)");
    return result;
  }
  return result;
}

}  // namespace partkv::serve
