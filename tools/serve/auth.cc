// SharedKey / SharedKeyLite authentication (auth.h).

#include "tools/serve/auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>

#include <cstdlib>
#include <ctime>

#include "partkv/base64.h"

namespace partkv::serve {
namespace {

// Azure refuses a request whose date is more than 15 minutes off the service's clock.
constexpr int64_t kMaxClockSkewSeconds = 15 * 60;

std::optional<int64_t> ParseHttpDate(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return static_cast<int64_t>(timegm(&tm));
}

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

void Account::MacDeleter::operator()(EVP_MAC_CTX* ctx) const { EVP_MAC_CTX_free(ctx); }

Result<Account> Account::Create(std::string name, std::string key) {
  if (key.empty()) return Status::InvalidArgument("the key of account '" + name + "' is empty");
  Account account;
  account.name_ = std::move(name);
  account.key_ = std::move(key);
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  if (mac == nullptr) return Status::IOError("OpenSSL has no HMAC");
  account.keyed_.reset(EVP_MAC_CTX_new(mac));
  EVP_MAC_free(mac);  // the context holds its own reference
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0),
                         OSSL_PARAM_construct_end()};
  if (!account.keyed_ ||
      EVP_MAC_init(account.keyed_.get(), reinterpret_cast<const unsigned char*>(account.key_.data()),
                   account.key_.size(), params) != 1) {
    return Status::IOError("OpenSSL cannot key HMAC-SHA256");
  }
  return account;
}

std::string Account::Sign(std::string_view message) const {
  // A duplicate of the keyed context only reads the original, so threads may share it.
  std::unique_ptr<EVP_MAC_CTX, MacDeleter> ctx(EVP_MAC_CTX_dup(keyed_.get()));
  unsigned char digest[EVP_MAX_MD_SIZE];
  size_t length = 0;
  if (!ctx ||
      EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(message.data()),
                     message.size()) != 1 ||
      EVP_MAC_final(ctx.get(), digest, &length, sizeof digest) != 1) {
    return HmacSha256Base64(key_, message);  // the slow path gives the same signature
  }
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(digest), length));
}

std::string HmacSha256Base64(std::string_view key, std::string_view message) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest, &length);
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(digest), length));
}

bool SignaturesEqual(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

AuthResult Authenticate(const HttpRequest& request, const Accounts& accounts,
                        std::string_view account_name, const PolicyLookup& policies) {
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
      result.error = VerifySas(request, account->name(), account->key(), policies, &scope);
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
  if (scheme != "SharedKey" && scheme != "SharedKeyLite") {
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
  auto when = ParseHttpDate(date);
  if (!when) {
    result.error = Refused("the request has no valid x-ms-date or Date header");
    return result;
  }
  if (std::llabs(*when - static_cast<int64_t>(std::time(nullptr))) > kMaxClockSkewSeconds) {
    result.error = Refused("the request's date '" + date +
                           "' is more than 15 minutes away from the server's clock");
    return result;
  }
  std::string resource = "/" + account->name() + request.raw_path;
  if (const std::string* comp = request.Param("comp")) resource += "?comp=" + *comp;
  std::string to_sign =
      scheme == "SharedKeyLite"
          ? date + "\n" + resource
          : request.verb + "\n" + request.Header("Content-MD5") + "\n" +
                request.Header("Content-Type") + "\n" + date + "\n" + resource;
  if (!SignaturesEqual(signature, account->Sign(to_sign))) {
    result.error = Refused("the " + scheme + " signature does not match; the server signed '" +
                           to_sign + "' (newlines as they are)");
    return result;
  }
  return result;
}

}  // namespace partkv::serve
