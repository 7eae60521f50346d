// The wire side of partkv serve's HTTP layer (request_parser.h).

#include "tools/serve/request_parser.h"

#include <utility>

#include "tools/serve/uri.h"

namespace partkv::serve {

void FillTarget(HttpRequest& r, std::string_view target) {
  size_t q = target.find('?');
  r.raw_path = std::string(target.substr(0, q));
  auto path = PercentDecode(r.raw_path, false);
  r.path = path.ok() ? std::move(*path) : std::string();  // "" is answered InvalidUri
  if (q != std::string_view::npos) {
    auto query = ParseQuery(target.substr(q + 1));
    if (query.ok()) r.query = std::move(*query);
  }
}

std::string SerializeHead(const HttpReply& reply, size_t body_size, bool close) {
  std::string head;
  head.reserve(256 + reply.headers.size() * 48);
  head += "HTTP/1.1 ";
  head += std::to_string(reply.status);
  head += ' ';
  head += ReasonPhrase(reply.status);
  head += "\r\n";
  for (const auto& [name, value] : reply.headers) {
    head += name;
    head += ": ";
    head += value;
    head += "\r\n";
  }
  head += "Content-Length: ";
  head += std::to_string(body_size);
  head += "\r\n";
  if (close) head += "Connection: close\r\n";
  head += "\r\n";
  return head;
}

}  // namespace partkv::serve
