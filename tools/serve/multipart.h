// multipart/mixed bodies of $batch requests and responses (RFC 2046 §5.1), as the Table service
// uses them ([EGT]): a batch part holding one changeset, whose parts are `application/http`
// sub-requests. Splitting accepts CRLF or bare LF line ends. Pure functions; thread-safe.

#ifndef PARTKV_TOOLS_SERVE_MULTIPART_H_
#define PARTKV_TOOLS_SERVE_MULTIPART_H_

#include <string>
#include <string_view>
#include <vector>

#include "partkv/result.h"
#include "tools/serve/http_types.h"

namespace partkv::serve {

struct MimePart {
  HeaderMap headers;
  std::string body;
};

// The boundary parameter of a multipart Content-Type; "" when there is none.
std::string BoundaryOf(std::string_view content_type);

// The parts between "--boundary" delimiters up to "--boundary--". InvalidArgument when the body
// has no delimiter, no closing delimiter, or a part without a header/body separator.
Result<std::vector<MimePart>> SplitMultipart(std::string_view body, std::string_view boundary);

// Parses an `application/http` part's content: request line, headers, blank line, body. The
// request target may be absolute ("http://host/acct/t") or a path. Fills method, verb,
// raw_path, path, query, headers and body.
Result<HttpRequest> ParseSubRequest(std::string_view text);

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_MULTIPART_H_
