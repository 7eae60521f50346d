// The transport-neutral request and reply of the Table service endpoint (docs/serve.md).
//
// The HTTP server (server.cc) turns each cpp-httplib request into an HttpRequest and writes the
// HttpReply back; a $batch (batch.cc) turns each of its sub-requests into an HttpRequest and each
// result into a sub-response. So every operation is implemented once, in service.cc, whichever
// way it arrived. Plain values; no thread-safety concerns of their own.

#ifndef PARTKV_TOOLS_SERVE_HTTP_TYPES_H_
#define PARTKV_TOOLS_SERVE_HTTP_TYPES_H_

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace partkv::serve {

// Header names compare case-insensitively (RFC 9110).
struct CaseInsensitiveLess {
  using is_transparent = void;  // lookups by string_view, without building a std::string
  bool operator()(std::string_view a, std::string_view b) const;
};
using HeaderMap = std::multimap<std::string, std::string, CaseInsensitiveLess>;

struct HttpRequest {
  std::string verb;      // the method as sent on the request line (signatures use it)
  std::string method;    // the operation's method: POST + X-HTTP-Method and PATCH become MERGE
  std::string raw_path;  // the request target's path, still percent-encoded (signatures use it)
  std::string path;      // raw_path percent-decoded
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in order
  HeaderMap headers;
  std::string body;
  std::string remote_addr;
  std::string base_url;  // "http://host:port", for odata.metadata, Location and odata.id

  // The header's first value, or "" when absent.
  std::string Header(std::string_view name) const;
  bool HasHeader(std::string_view name) const { return headers.find(name) != headers.end(); }
  // The first value of a query parameter (names compare exactly), or nullptr.
  const std::string* Param(std::string_view name) const;
};

struct HttpReply {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  void SetHeader(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
  }
  std::string Header(std::string_view name) const;
};

// "OK", "Created", "No Content", ... for a status code (batch sub-responses need it).
std::string_view ReasonPhrase(int status);

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_HTTP_TYPES_H_
