// multipart/mixed parsing for $batch (multipart.h).

#include "tools/serve/multipart.h"

#include "tools/serve/uri.h"

namespace partkv::serve {
namespace {

// The next line of `text` from *at (without its CR LF / LF); advances past it.
std::string_view NextLine(std::string_view text, size_t* at) {
  size_t end = text.find('\n', *at);
  std::string_view line = text.substr(*at, end == std::string_view::npos ? end : end - *at);
  *at = end == std::string_view::npos ? text.size() : end + 1;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Reads header lines from *at up to and including the blank line.
Result<HeaderMap> ReadHeaders(std::string_view text, size_t* at) {
  HeaderMap headers;
  while (true) {
    if (*at >= text.size()) return Status::InvalidArgument("a part's headers do not end in a blank line");
    std::string_view line = NextLine(text, at);
    if (line.empty()) return headers;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return Status::InvalidArgument("malformed header line '" + std::string(line.substr(0, 80)) + "'");
    }
    headers.emplace(std::string(Trim(line.substr(0, colon))), std::string(Trim(line.substr(colon + 1))));
  }
}

}  // namespace

std::string BoundaryOf(std::string_view content_type) {
  size_t at = content_type.find("boundary=");
  if (at == std::string_view::npos) return "";
  std::string_view b = content_type.substr(at + 9);
  b = b.substr(0, b.find(';'));
  b = Trim(b);
  if (b.size() >= 2 && b.front() == '"' && b.back() == '"') b = b.substr(1, b.size() - 2);
  return std::string(b);
}

Result<std::vector<MimePart>> SplitMultipart(std::string_view body, std::string_view boundary) {
  if (boundary.empty()) return Status::InvalidArgument("the multipart Content-Type has no boundary");
  const std::string delimiter = "--" + std::string(boundary);
  std::vector<MimePart> parts;
  // The first delimiter may open the body or follow a preamble line.
  size_t at = body.starts_with(delimiter) ? 0 : body.find("\n" + delimiter);
  if (at == std::string_view::npos) return Status::InvalidArgument("the body has no '" + delimiter + "' delimiter");
  if (body[at] == '\n') ++at;
  while (true) {
    at += delimiter.size();
    if (body.substr(at, 2) == "--") return parts;  // closing delimiter
    NextLine(body, &at);                           // rest of the delimiter line
    size_t next = body.find("\n" + delimiter, at);
    if (next == std::string_view::npos) {
      return Status::InvalidArgument("the body has no closing '" + delimiter + "--' delimiter");
    }
    std::string_view content = body.substr(at, next + 1 - at);
    size_t pos = 0;
    MimePart part;
    PARTKV_ASSIGN_OR_RETURN(part.headers, ReadHeaders(content, &pos));
    std::string_view rest = content.substr(pos);
    // The line break before the delimiter belongs to the delimiter.
    if (rest.ends_with("\r\n")) rest.remove_suffix(2);
    else if (rest.ends_with("\n")) rest.remove_suffix(1);
    part.body = std::string(rest);
    parts.push_back(std::move(part));
    at = next + 1;
  }
}

Result<HttpRequest> ParseSubRequest(std::string_view text) {
  size_t at = 0;
  // Skip blank lines before the request line.
  std::string_view line;
  do {
    if (at >= text.size()) return Status::InvalidArgument("the sub-request has no request line");
    line = NextLine(text, &at);
  } while (Trim(line).empty());
  size_t sp1 = line.find(' ');
  size_t sp2 = line.rfind(' ');
  if (sp1 == std::string_view::npos || sp2 == sp1 || !line.substr(sp2 + 1).starts_with("HTTP/")) {
    return Status::InvalidArgument("malformed sub-request line '" + std::string(line.substr(0, 120)) + "'");
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
  PARTKV_ASSIGN_OR_RETURN(r.headers, ReadHeaders(text, &at));
  r.body = std::string(Trim(text.substr(at)));
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
