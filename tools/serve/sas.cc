// Shared access signatures (sas.h). The strings to sign follow the Storage documentation for
// service versions 2015-04-05 and later ("Create a service SAS", "Create an account SAS").

#include "tools/serve/sas.h"

#include <arpa/inet.h>

#include <chrono>
#include <cstdint>

#include "partkv/value.h"

namespace partkv::serve {
namespace {

AzureError AuthFailed(std::string_view detail) {
  return MakeError(403, "AuthenticationFailed", detail);
}

std::string Param(const HttpRequest& r, std::string_view name) {
  const std::string* v = r.Param(name);
  return v ? *v : std::string();
}

// SAS times are ISO 8601 UTC, to the second or the minute ("2024-05-01T10:00Z"), or a date.
std::optional<DateTime> ParseSasTime(std::string text) {
  if (text.size() == 17 && text[16] == 'Z') text.insert(16, ":00");  // minutes only
  if (text.size() == 10) text += "T00:00:00Z";                       // a date
  auto t = DateTime::Parse(text);
  if (!t.ok()) return std::nullopt;
  return *t;
}

DateTime Now() {
  auto now = std::chrono::system_clock::now().time_since_epoch();
  return DateTime::FromUnixMicros(
      std::chrono::duration_cast<std::chrono::microseconds>(now).count());
}

std::optional<uint32_t> ParseIpv4(const std::string& text) {
  in_addr addr{};
  if (inet_pton(AF_INET, text.c_str(), &addr) != 1) return std::nullopt;
  return ntohl(addr.s_addr);
}

bool IpAllowed(const std::string& range, const std::string& remote) {
  size_t dash = range.find('-');
  auto lo = ParseIpv4(range.substr(0, dash));
  auto hi = dash == std::string::npos ? lo : ParseIpv4(range.substr(dash + 1));
  auto ip = ParseIpv4(remote);
  return lo && hi && ip && *lo <= *ip && *ip <= *hi;
}

bool Has(std::string_view set, char c) { return set.find(c) != std::string_view::npos; }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

std::optional<AzureError> VerifySas(const HttpRequest& request, std::string_view account,
                                    const protocol::HmacSha256& signer,
                                    const PolicyLookup& policies, SasScope* scope) {
  const std::string sv = Param(request, "sv"), sig = Param(request, "sig");
  const std::string sp = Param(request, "sp"), st = Param(request, "st"), se = Param(request, "se");
  const std::string sip = Param(request, "sip"), spr = Param(request, "spr");
  const std::string si = Param(request, "si");
  if (sv.empty()) return AuthFailed("the SAS token has no signed version (sv)");
  if (sv < "2015-04-05")
    return AuthFailed("SAS version " + sv + " is not supported (2015-04-05 or later)");
  std::optional<DateTime> expiry, start;
  if (!se.empty()) {
    expiry = ParseSasTime(se);
    if (!expiry) return AuthFailed("the SAS expiry '" + se + "' is not an ISO 8601 UTC time");
  }
  if (!st.empty()) {
    start = ParseSasTime(st);
    if (!start) return AuthFailed("the SAS start '" + st + "' is not an ISO 8601 UTC time");
  }

  std::string to_sign;
  const bool table_sas = request.Param("tn") != nullptr;
  if (table_sas) {
    const std::string tn = Param(request, "tn");
    to_sign = sp + "\n" + st + "\n" + se + "\n/table/" + std::string(account) + "/" + Lower(tn) +
              "\n" + si + "\n" + sip + "\n" + spr + "\n" + sv + "\n" + Param(request, "spk") +
              "\n" + Param(request, "srk") + "\n" + Param(request, "epk") + "\n" +
              Param(request, "erk");
    scope->account_sas = false;
    scope->table = tn;
    scope->start_pk = Param(request, "spk");
    scope->start_rk = Param(request, "srk");
    scope->end_pk = Param(request, "epk");
    scope->end_rk = Param(request, "erk");
  } else {
    const std::string ss = Param(request, "ss"), srt = Param(request, "srt");
    if (ss.empty() || srt.empty()) {
      return AuthFailed("the SAS token is neither a table SAS (tn) nor an account SAS (ss, srt)");
    }
    to_sign = std::string(account) + "\n" + sp + "\n" + ss + "\n" + srt + "\n" + st + "\n" + se +
              "\n" + sip + "\n" + spr + "\n" + sv + "\n";
    if (sv >= "2020-12-06") to_sign += Param(request, "ses") + "\n";
    if (!Has(ss, 't')) {
      if (!protocol::SignaturesEqual(sig, signer.Sign(to_sign))) {
        return AuthFailed("the SAS signature does not match");
      }
      return MakeError(403, "AuthorizationServiceMismatch",
                       "the account SAS does not include the table service (ss=" + ss + ")");
    }
    scope->account_sas = true;
    scope->resource_types = srt;
  }
  scope->permissions = sp;
  if (!protocol::SignaturesEqual(sig, signer.Sign(to_sign))) {
    return AuthFailed("the SAS signature does not match");
  }
  if (!si.empty()) {
    // Azure: stored access policies are for service SAS only.
    if (!table_sas) return AuthFailed("an account SAS cannot name a stored access policy (si)");
    std::optional<AccessPolicy> policy = policies ? policies(scope->table, si) : std::nullopt;
    if (!policy) {
      return AuthFailed("table '" + scope->table + "' has no stored access policy '" + si + "'");
    }
    if ((policy->start && start) || (policy->expiry && expiry) ||
        (!policy->permission.empty() && !sp.empty())) {
      return MakeError(400, "InvalidInput",
                       "the SAS token and its stored access policy '" + si +
                           "' both give a start, an expiry or permissions; each may come from "
                           "one of them only");
    }
    if (policy->start) start = policy->start;
    if (policy->expiry) expiry = policy->expiry;
    if (!policy->permission.empty()) scope->permissions = policy->permission;
  }
  if (!expiry) {
    return AuthFailed(si.empty() ? "the SAS token has no expiry (se)"
                                 : "neither the SAS token nor its stored access policy gives an "
                                   "expiry");
  }
  if (scope->permissions.empty()) {
    return AuthFailed(si.empty() ? "the SAS token has no permissions (sp)"
                                 : "neither the SAS token nor its stored access policy gives "
                                   "permissions");
  }
  DateTime now = Now();
  if (!(now < *expiry)) return AuthFailed("the SAS token expired at " + expiry->ToString());
  if (start && now < *start) {
    return AuthFailed("the SAS token is not valid before " + start->ToString());
  }
  if (!spr.empty() && spr != "https,http" && spr != "http,https" && spr != "http") {
    return MakeError(403, "AuthorizationProtocolMismatch",
                     "the SAS token allows only " + spr + "; this server speaks http");
  }
  if (!sip.empty() && !IpAllowed(sip, request.remote_addr)) {
    return MakeError(403, "AuthorizationSourceIPMismatch",
                     "the SAS token does not allow requests from " + request.remote_addr);
  }
  return std::nullopt;
}

std::optional<AzureError> AuthorizeSas(const SasScope& scope, SasOp op, std::string_view table) {
  const std::string& sp = scope.permissions;
  if (op == SasOp::kTableAcl) {
    return MakeError(403, "AuthorizationFailure",
                     "a shared access signature cannot read or change a table's access policies");
  }
  if (op == SasOp::kGetServiceProperties || op == SasOp::kSetServiceProperties) {
    // Account SAS only: resource type s (service), permission r to read, w to write.
    const bool get = op == SasOp::kGetServiceProperties;
    if (!scope.account_sas) {
      return MakeError(403, "AuthorizationFailure",
                       "a table SAS cannot read the service properties or statistics, or set "
                       "the properties");
    }
    if (!Has(scope.resource_types, 's')) {
      return MakeError(
          403, "AuthorizationResourceTypeMismatch",
          "the account SAS lacks resource type 's' (srt=" + scope.resource_types + ")");
    }
    if (!Has(sp, get ? 'r' : 'w')) {
      return MakeError(
          403, "AuthorizationPermissionMismatch",
          "the SAS token's permissions (sp=" + sp + ") do not include " + (get ? "r" : "w"));
    }
    return std::nullopt;
  }
  const bool service_level =
      op == SasOp::kListTables || op == SasOp::kCreateTable || op == SasOp::kDeleteTable;
  if (!scope.account_sas) {
    if (service_level) {
      return MakeError(403, "AuthorizationFailure",
                       "a table SAS cannot list, create or delete tables");
    }
    if (Lower(table) != Lower(scope.table)) {
      return MakeError(
          403, "AuthorizationFailure",
          "the SAS token is for table '" + scope.table + "', not '" + std::string(table) + "'");
    }
  } else {
    char needed_type = service_level ? 'c' : 'o';
    if (op == SasOp::kListTables) needed_type = 'c';
    if (!Has(scope.resource_types, needed_type)) {
      return MakeError(403, "AuthorizationResourceTypeMismatch",
                       std::string("the account SAS lacks resource type '") + needed_type +
                           "' (srt=" + scope.resource_types + ")");
    }
  }
  bool allowed = false;
  std::string_view wanted;
  switch (op) {
    case SasOp::kListTables:
      allowed = Has(sp, 'l');
      wanted = "l";
      break;
    case SasOp::kCreateTable:
      allowed = Has(sp, 'a') || Has(sp, 'c') || Has(sp, 'w');
      wanted = "a, c or w";
      break;
    case SasOp::kDeleteTable:
      allowed = Has(sp, 'd');
      wanted = "d";
      break;
    case SasOp::kQueryEntities:
      allowed = Has(sp, 'r');
      wanted = "r";
      break;
    case SasOp::kInsert:
      allowed = Has(sp, 'a') || (scope.account_sas && Has(sp, 'w'));
      wanted = "a";
      break;
    case SasOp::kUpdate:
      allowed = Has(sp, 'u') || (scope.account_sas && Has(sp, 'w'));
      wanted = "u";
      break;
    case SasOp::kUpsert:
      allowed = (Has(sp, 'a') && Has(sp, 'u')) || (scope.account_sas && Has(sp, 'w'));
      wanted = "a and u";
      break;
    case SasOp::kDelete:
      allowed = Has(sp, 'd');
      wanted = "d";
      break;
    case SasOp::kGetServiceProperties:
    case SasOp::kSetServiceProperties:
    case SasOp::kTableAcl:
      break;  // decided above
  }
  if (!allowed) {
    return MakeError(
        403, "AuthorizationPermissionMismatch",
        "the SAS token's permissions (sp=" + sp + ") do not include " + std::string(wanted));
  }
  return std::nullopt;
}

bool InKeyRange(const SasScope& scope, std::string_view pk, std::string_view rk) {
  if (scope.account_sas) return true;
  if (!scope.start_pk.empty()) {
    if (pk < scope.start_pk) return false;
    if (pk == scope.start_pk && !scope.start_rk.empty() && rk < scope.start_rk) return false;
  }
  if (!scope.end_pk.empty()) {
    if (pk > scope.end_pk) return false;
    if (pk == scope.end_pk && !scope.end_rk.empty() && rk > scope.end_rk) return false;
  }
  return true;
}

}  // namespace partkv::serve
