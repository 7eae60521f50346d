// ETags: the text form of a store-wide, never-repeating 64-bit version (docs/format.md "ETags").
//
//   ETag = W/" + the version in lower-case hex without leading zeros + "   e.g. W/"1f3"
//
// The version is issued by StoreState::NextEtagVersion, so it is unique across every entity of
// the store and across restarts, whatever the wall clock does.

#ifndef PARTKV_ENGINE_ETAG_H_
#define PARTKV_ENGINE_ETAG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace partkv::engine {

std::string FormatEtag(uint64_t version);
// FormatEtag into *out, replacing its contents (reuses its buffer: a query formats one per row).
void FormatEtagInto(uint64_t version, std::string* out);
// The version of a well-formed ETag; nullopt for anything else (which then matches nothing).
std::optional<uint64_t> ParseEtag(std::string_view etag);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_ETAG_H_
