// Shared access signatures (docs/serve.md "Authentication"): account SAS and table (service) SAS
// tokens, as the SDKs' generateAccountSas / generateTableSas make them, checked against the
// account key and then enforced on every operation: permissions, expiry and start, resource types
// and services (account SAS), the table and the PartitionKey/RowKey range (table SAS), the
// signed IP range and protocol.
//
// A table SAS may name one of the table's stored access policies (si=, partkv/table.h
// AccessPolicy): the token then takes its start, expiry and permissions from the policy as it is
// when the request arrives, so changing or removing the policy changes or revokes the token. As
// Azure documents, each of those fields may come from the token or from the policy but not from
// both (400), and the two together must give an expiry and permissions; a policy that does not
// exist (any more) is 403 AuthenticationFailed, as is an expired one.
//
// Thread-safe: the functions are pure but for the PolicyLookup, which must be thread-safe.

#ifndef PARTKV_TOOLS_SERVE_SAS_H_
#define PARTKV_TOOLS_SERVE_SAS_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "engine/protocol/shared_key.h"
#include "partkv/table.h"
#include "tools/serve/errors.h"
#include "tools/serve/http_types.h"

namespace partkv::serve {

// What an operation needs from a SAS.
enum class SasOp {
  kListTables,
  kCreateTable,
  kDeleteTable,
  kQueryEntities,  // query and point read
  kInsert,
  kUpdate,  // Replace and Merge
  kUpsert,  // InsertOrReplace and InsertOrMerge
  kDelete,
  kGetServiceProperties,
  kSetServiceProperties,
  kTableAcl,  // Get and Set Table ACL: no SAS may (Azure: the account key only)
};

// The stored access policy `id` of table `table` (compared as Azure compares table names), or
// nullopt when there is no such table or policy.
using PolicyLookup =
    std::function<std::optional<AccessPolicy>(std::string_view table, std::string_view id)>;

// The scope a verified SAS grants.
struct SasScope {
  bool account_sas = false;
  std::string permissions;                         // sp
  std::string resource_types;                      // srt (account SAS)
  std::string table;                               // tn (table SAS), as given
  std::string start_pk, start_rk, end_pk, end_rk;  // spk srk epk erk (table SAS); "" = open
};

// Verifies the SAS in `request`'s query (sv, sig, ...) for `account`, whose key `signer` signs
// with, finding a stored access policy it names with `policies`. On failure returns the error
// (403, or 400 for a field given by both token and policy); on success fills *scope.
std::optional<AzureError> VerifySas(const HttpRequest& request, std::string_view account,
                                    const protocol::HmacSha256& signer,
                                    const PolicyLookup& policies, SasScope* scope);

// Whether the scope allows `op` on `table` (empty for service-level operations). Key ranges
// are checked separately (InKeyRange), per entity.
std::optional<AzureError> AuthorizeSas(const SasScope& scope, SasOp op, std::string_view table);

// Whether (pk, rk) lies within a table SAS's key range: (spk, srk) <= (pk, rk) <= (epk, erk)
// compared as (PartitionKey, RowKey) pairs; an absent bound is open.
bool InKeyRange(const SasScope& scope, std::string_view pk, std::string_view rk);

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_SAS_H_
