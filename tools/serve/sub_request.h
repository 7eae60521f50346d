// The sub-requests of a $batch as serve's HttpRequest. The multipart/mixed body itself is cut by
// the protocol's SplitMultipart and SplitHttpMessage (engine/protocol/multipart.h), which the
// remote backend's client uses too. Pure functions; thread-safe.

#ifndef PARTKV_TOOLS_SERVE_SUB_REQUEST_H_
#define PARTKV_TOOLS_SERVE_SUB_REQUEST_H_

#include <string_view>

#include "partkv/result.h"
#include "tools/serve/http_types.h"

namespace partkv::serve {

// Parses an `application/http` part's content: request line, headers, blank line, body. The
// request target may be absolute ("http://host/acct/t") or a path. Fills method, verb,
// raw_path, path, query, headers and body (without the line breaks and blanks around it).
Result<HttpRequest> ParseSubRequest(std::string_view text);

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_SUB_REQUEST_H_
