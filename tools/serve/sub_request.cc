// A $batch sub-request as serve's HttpRequest (multipart.h).

#include "tools/serve/sub_request.h"

#include "engine/port/strings.h"
#include "engine/protocol/multipart.h"
#include "tools/serve/uri.h"

namespace partkv::serve {
namespace {}  // namespace

Result<HttpRequest> ParseSubRequest(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Status::InvalidArgument("the sub-request has no request line");
  }
  PARTKV_ASSIGN_OR_RETURN(protocol::HttpMessageText message, protocol::SplitHttpMessage(text));
  const std::string_view line = message.start_line;
  size_t sp1 = line.find(' ');
  size_t sp2 = line.rfind(' ');
  if (sp1 == std::string_view::npos || sp2 == sp1 || !line.substr(sp2 + 1).starts_with("HTTP/")) {
    return Status::InvalidArgument("malformed sub-request line '" +
                                   std::string(line.substr(0, 120)) + "'");
  }
  HttpRequest r;
  r.verb = std::string(line.substr(0, sp1));
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (size_t scheme = target.find("://"); scheme != std::string_view::npos) {
    size_t slash = target.find('/', scheme + 3);
    target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
  }
  size_t q = target.find('?');
  r.raw_path = std::string(target.substr(0, q));
  PARTKV_ASSIGN_OR_RETURN(r.path, PercentDecode(r.raw_path, false));
  if (q != std::string_view::npos) {
    PARTKV_ASSIGN_OR_RETURN(r.query, ParseQuery(target.substr(q + 1)));
  }
  for (auto& [name, value] : message.headers) r.headers.emplace(std::move(name), std::move(value));
  r.body = std::string(port::TrimAsciiWhitespace(message.body));
  while (!r.body.empty() && (r.body.front() == '\r' || r.body.front() == '\n')) r.body.erase(0, 1);
  while (!r.body.empty() && (r.body.back() == '\r' || r.body.back() == '\n')) r.body.pop_back();
  r.method = r.verb;
  if (r.method == "PATCH") r.method = "MERGE";
  if (r.method == "POST") {
    std::string override_method = r.Header("X-HTTP-Method");
    if (!override_method.empty()) r.method = override_method;
  }
  return r;
}

}  // namespace partkv::serve
