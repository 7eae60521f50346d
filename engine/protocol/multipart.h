// The bodies of the Table service's `$batch` requests and responses (Microsoft's "Performing
// entity group transactions"): multipart/mixed (RFC 2046 §5.1) holding one changeset, itself
// multipart/mixed, whose parts are `application/http`: one HTTP/1.1 message each, as text. One
// implementation for both sides: `partkv serve` splits requests and writes responses with it,
// the remote backend writes requests and reads responses with it, so neither can drift from the
// other.
//
// A request, as @azure/data-tables 13.3.2 sends it (BatchRequestBody writes exactly these bytes;
// every line ends in CRLF):
//
//   --batch_B
//   content-type: multipart/mixed; boundary=changeset_C
//                                           <- the blank line that ends the part's headers
//                                           <- a blank preamble line of the changeset
//   --changeset_C
//   content-type: application/http
//   content-transfer-encoding: binary
//
//   POST https://account.table.core.windows.net/Table HTTP/1.1
//   Content-Type: application/json;odata=nometadata
//   ...                                     <- the operation's headers, in order
//
//                                           <- before a body, one more blank line
//   {"PartitionKey":"p","RowKey":"r"}
//   --changeset_C
//   ...                                     <- one part per operation
//   --changeset_C--
//   --batch_B--
//
// A response holds the same envelope (boundaries batchresponse_… and changesetresponse_…, by
// convention) with one `HTTP/1.1 <status> <reason>` message per operation when the changeset
// succeeded, or only the failing operation's when it failed (then nothing was applied). A batch
// holding a single query is answered with its response directly in the batch, without a
// changeset.
//
// Readers accept CRLF or bare LF line ends. Every function is pure and thread-safe.

#ifndef PARTKV_ENGINE_PROTOCOL_MULTIPART_H_
#define PARTKV_ENGINE_PROTOCOL_MULTIPART_H_

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "partkv/result.h"

namespace partkv::protocol {

// Header fields in the order they came or are to be written; a name may repeat. Names compare
// ASCII case-insensitively (RFC 9110), values as they are.
using HeaderList = std::vector<std::pair<std::string, std::string>>;

// The value of the first field named `name` in `headers`, or nullptr. The pointer lives as long
// as the list is not changed.
const std::string* FindHeader(const HeaderList& headers, std::string_view name);

// An HTTP message as text, cut into its pieces without interpreting them.
struct HttpMessageText {
  std::string start_line;  // the request line or the status line
  HeaderList headers;      // names and values with surrounding spaces and tabs removed
  std::string body;        // everything after the blank line that ends the headers, as it is
};

// Cuts an `application/http` part's content. Blank lines before the start line are skipped.
// InvalidArgument when there is no start line ("the message has no start line"), a header line
// has no ':' ("malformed header line '…'"), or the headers do not end in a blank line ("a
// part's headers do not end in a blank line").
Result<HttpMessageText> SplitHttpMessage(std::string_view text);

// One part of a multipart body: its MIME headers and its content.
struct MimePart {
  HeaderList headers;
  std::string body;  // without the line break that belongs to the next delimiter

  const std::string* Header(std::string_view name) const { return FindHeader(headers, name); }
};

// The boundary parameter of a multipart Content-Type (quotes removed); "" when there is none.
std::string BoundaryOf(std::string_view content_type);

// The parts between "--boundary" delimiter lines, up to the closing "--boundary--"; anything
// before the first delimiter (a preamble) and after the closing one is ignored. InvalidArgument
// when the boundary is empty, the body has no delimiter or no closing delimiter, or a part's
// headers are malformed or do not end in a blank line.
Result<std::vector<MimePart>> SplitMultipart(std::string_view body, std::string_view boundary);

// One operation of a changeset, as the client sends it.
struct BatchSubRequest {
  std::string method;  // as on the request line: POST, PUT, MERGE, PATCH, DELETE
  std::string url;     // absolute and percent-encoded; without a SAS (the batch carries it)
  HeaderList headers;  // the operation's own, in order (the batch's x-ms-version is not repeated)
  std::string body;    // "" for none
  // When set, written as the part's Content-ID header, which services echo in the operation's
  // response (ParseBatchResponse can then tell which operation failed by it).
  std::optional<std::string> content_id;
};

// The body of a `$batch` request holding one changeset of `operations`, byte for byte as
// @azure/data-tables 13.3.2 writes it (layout above; an operation with a content_id has the
// line "content-id: …" after content-transfer-encoding, which the SDK never writes). Send it
// with Content-Type "multipart/mixed; boundary=" + batch_boundary. The SDK's boundaries are
// "batch_" and "changeset_" followed by a random UUID; any boundary that never occurs in the
// content will do.
std::string BatchRequestBody(std::string_view batch_boundary, std::string_view changeset_boundary,
                             std::span<const BatchSubRequest> operations);

// One operation's response inside a `$batch` response.
struct BatchSubResponse {
  int status = 0;
  std::string reason;  // the status line's reason phrase ("No Content")
  HeaderList headers;  // the response's own, in order
  std::string body;

  const std::string* Header(std::string_view name) const { return FindHeader(headers, name); }
};

// The body of a `$batch` response: the responses in a changeset bounded by changeset_boundary,
// in a batch bounded by batch_boundary, or, when changeset_boundary is empty (the answer to a
// batch holding a query), directly in the batch. Each part is
//   --boundary CRLF Content-Type: application/http CRLF Content-Transfer-Encoding: binary CRLF
//   CRLF HTTP/1.1 status reason CRLF (name: value CRLF)* CRLF body CRLF
// Sent with Content-Type "multipart/mixed; boundary=" + batch_boundary.
std::string BatchResponseBody(std::string_view batch_boundary, std::string_view changeset_boundary,
                              std::span<const BatchSubResponse> responses);

// A `$batch` response, read.
struct BatchResponse {
  // In the order they came: one per operation when the changeset succeeded; the failing
  // operation's alone when it failed; the query's for a batch holding a query.
  std::vector<BatchSubResponse> responses;
  // Whether the changeset failed: its one response's status is not 2xx. Nothing was applied.
  bool failed = false;
  // When failed, the 0-based index of the operation that failed, when the response tells it.
  std::optional<size_t> failed_index;
};

// Reads the body of a 202 `$batch` response whose Content-Type is `content_type`.
//
// Which operation failed: the Table service starts the error message with the operation's
// 0-based index and a colon ("2:The specified entity already exists."), in the JSON error body
// (odata.error.message.value) or the XML one (<message>). failed_index relies on that first:
// Azure documents it, and Azure, Azurite and `partkv serve` all write it. Only when the message
// carries no index is the response's Content-ID (among its HTTP headers, else its part's MIME
// headers) looked up in `content_ids`, the content_id each operation of the request was sent
// with, in order; a Content-ID that is none of them is ignored, because a service may number
// responses on its own (Azurite 3.37 answers "Content-ID: 2" for operation 1, whatever the
// request sent; `partkv serve` echoes the request's). With neither, failed_index stays empty.
// The index is the service's word: the caller checks it against its number of operations.
//
// InvalidArgument naming what is wrong when `content_type` is not multipart/mixed with a
// boundary, the body does not split (see SplitMultipart), the batch holds anything but one
// changeset or one application/http part, a changeset holds no response, a part is not
// application/http, a status line is not "HTTP/1.x NNN reason", or a failed changeset answers
// with more than one response.
Result<BatchResponse> ParseBatchResponse(std::string_view body, std::string_view content_type,
                                         std::span<const std::string> content_ids = {});

}  // namespace partkv::protocol

#endif  // PARTKV_ENGINE_PROTOCOL_MULTIPART_H_
