// The Table service's URIs (docs/serve.md "Requests"): percent-decoding, query strings, and the
// resource a path names, in the path-style form of the development storage account:
//
//   /{account}/Tables                                   table set (query, create)
//   /{account}/Tables('name')                           one table (delete, get)
//   /{account}/{table}  or  /{account}/{table}()        entity set (insert, query)
//   /{account}/{table}(PartitionKey='p',RowKey='r')     one entity
//   /{account}/$batch                                   entity group transaction
//
// Key literals are OData strings: single-quoted, a quote doubled ('O''Brien'). All functions are
// pure and thread-safe.

#ifndef PARTKV_TOOLS_SERVE_URI_H_
#define PARTKV_TOOLS_SERVE_URI_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "partkv/result.h"

namespace partkv::serve {

// Decodes %XX escapes; with `plus_is_space` (query strings) also '+'. InvalidArgument for a
// malformed escape.
Result<std::string> PercentDecode(std::string_view text, bool plus_is_space);
// Encodes every byte outside RFC 3986's unreserved set (and keeps `keep` as is).
std::string PercentEncode(std::string_view text, std::string_view keep = {});
// Splits "a=1&b=2" into decoded pairs.
Result<std::vector<std::pair<std::string, std::string>>> ParseQuery(std::string_view query);

struct Resource {
  enum class Kind {
    kServiceRoot,  // "/{account}" or "/{account}/"
    kTables,       // Tables, Tables()
    kTable,        // Tables('name')
    kEntities,     // {table}, {table}()
    kEntity,       // {table}(PartitionKey='p',RowKey='r')
    kBatch,        // $batch
  };
  Kind kind = Kind::kServiceRoot;
  std::string account;     // without the "-secondary" suffix
  bool secondary = false;  // "/{account}-secondary/...": the read-only secondary location
  std::string table;       // kTable, kEntities, kEntity
  std::string partition_key, row_key;  // kEntity
};

// Parses a percent-decoded path. InvalidArgument (→ 400 InvalidUri / InvalidInput) otherwise.
Result<Resource> ParseResource(std::string_view path);

// The URI path of an entity below the account: table(PartitionKey='p',RowKey='r'), the keys
// quoted and percent-encoded as Azure writes them in Location and odata.id.
std::string EntityPath(std::string_view table, std::string_view pk, std::string_view rk);

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_URI_H_
