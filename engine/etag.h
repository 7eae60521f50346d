// ETags: the text form of an entity version (docs/format.md "ETags"), in Azure Table's form,
//
//   ETag = W/"datetime'YYYY-MM-DDTHH%3AMM%3ASS.fffffffZ'"   e.g.
//          W/"datetime'2021-04-06T21%3A03%3A31.9231271Z'"
//
// where the datetime is the version read as .NET ticks (the entity's Timestamp), colons
// percent-encoded, always seven fractional digits. Versions are issued by
// StoreState::IssueTicks, so a version is unique across every entity of the store and across
// restarts, whatever the wall clock does; the ETag names the version and, like Azure's, the time
// of the write.

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
// The version of a well-formed ETag: the form above, also with the colons unencoded (as a client
// that decoded the text sends it back); nullopt for anything else (which then matches nothing).
std::optional<uint64_t> ParseEtag(std::string_view etag);

}  // namespace partkv::engine

#endif  // PARTKV_ENGINE_ETAG_H_
