// Shared access signatures (docs/serve.md "Authentication"): account SAS and table (service) SAS
// tokens, as the SDKs' generateAccountSas / generateTableSas make them, checked against the
// account key and then enforced on every operation: permissions, expiry and start, resource types
// and services (account SAS), the table and the PartitionKey/RowKey range (table SAS), the
// signed IP range and protocol. Stored access policies (si=) are not supported and refused.
//
// Pure functions; thread-safe.

#ifndef PARTKV_TOOLS_SERVE_SAS_H_
#define PARTKV_TOOLS_SERVE_SAS_H_

#include <optional>
#include <string>
#include <string_view>

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
};

// The scope a verified SAS grants.
struct SasScope {
  bool account_sas = false;
  std::string permissions;     // sp
  std::string resource_types;  // srt (account SAS)
  std::string table;           // tn (table SAS), as given
  std::string start_pk, start_rk, end_pk, end_rk;  // spk srk epk erk (table SAS); "" = open
};

// Verifies the SAS in `request`'s query (sv, sig, ...) for `account` with key bytes `key`.
// On failure returns the 403 error; on success fills *scope.
std::optional<AzureError> VerifySas(const HttpRequest& request, std::string_view account,
                                    std::string_view key, SasScope* scope);

// Whether the scope allows `op` on `table` (empty for service-level operations). Key ranges
// are checked separately (InKeyRange), per entity.
std::optional<AzureError> AuthorizeSas(const SasScope& scope, SasOp op, std::string_view table);

// Whether (pk, rk) lies within a table SAS's key range: (spk, srk) <= (pk, rk) <= (epk, erk)
// compared as (PartitionKey, RowKey) pairs; an absent bound is open.
bool InKeyRange(const SasScope& scope, std::string_view pk, std::string_view rk);

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_SAS_H_
