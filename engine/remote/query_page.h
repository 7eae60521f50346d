// The body of a query answer (entities or tables), read strictly before anything in it is used:
// one JSON object whose "value" member is an array of objects, and nothing else around it. The
// objects are returned as views into the body, to be read by EntityFromJson; the object's other
// members are checked to be well-formed JSON and skipped, but for "odata.metadata", whose text
// is returned so that the caller can check it names the table it asked about.
//
// A body of any other shape — an array, a "value" that holds arrays or numbers, a second
// document after the first, JSON nested deeper than kMaxDepth — is Corruption saying what was
// found and where, never an empty page: an empty page with no continuation reads as the end of
// the query, so a malformed one would end a read early without a word.
//
// Pure; thread-safe.

#ifndef PARTKV_ENGINE_REMOTE_QUERY_PAGE_H_
#define PARTKV_ENGINE_REMOTE_QUERY_PAGE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/result.h"

namespace partkv::remote {

struct QueryPageBody {
  std::vector<std::string_view> objects;  // the "value" array's objects, as views into the body
  std::optional<std::string> metadata;    // "odata.metadata", unescaped, when present
};

// JSON nesting beyond this (objects and arrays) is refused: the entities of a Table answer are
// flat, so a deep document is not one.
inline constexpr int kMaxDepth = 64;

// Reads `body`. Corruption, naming `what` ("query table 'T'"), for any other shape.
Result<QueryPageBody> ReadQueryPageBody(std::string_view body, std::string_view what);

// The table that an "odata.metadata" URL names: the text after "$metadata#" up to a '/' or the
// end ("…/$metadata#Orders" and "…/$metadata#Orders/@Element" name Orders; "…/$metadata#Tables"
// names the table list). Empty when there is no "$metadata#".
std::string_view MetadataTable(std::string_view metadata);

}  // namespace partkv::remote

#endif  // PARTKV_ENGINE_REMOTE_QUERY_PAGE_H_
