// $batch bodies: multipart/mixed with application/http parts (multipart.h).

#include "engine/protocol/multipart.h"

#include <nlohmann/json.hpp>

#include "engine/port/strings.h"

namespace partkv::protocol {
namespace {

// Header names are ASCII tokens: no locale.
char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

bool StartsWithIgnoringCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoringCase(s.substr(0, prefix.size()), prefix);
}

// The next line of `text` from *at (without its CR LF / LF); advances past it.
std::string_view NextLine(std::string_view text, size_t* at) {
  size_t end = text.find('\n', *at);
  std::string_view line = text.substr(*at, end == std::string_view::npos ? end : end - *at);
  *at = end == std::string_view::npos ? text.size() : end + 1;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// Reads header lines from *at up to and including the blank line.
Result<HeaderList> ReadHeaders(std::string_view text, size_t* at) {
  HeaderList headers;
  while (true) {
    if (*at >= text.size()) {
      return Status::InvalidArgument("a part's headers do not end in a blank line");
    }
    std::string_view line = NextLine(text, at);
    if (line.empty()) return headers;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return Status::InvalidArgument("malformed header line '" + std::string(line.substr(0, 80)) +
                                     "'");
    }
    headers.emplace_back(std::string(port::TrimAsciiWhitespace(line.substr(0, colon))),
                         std::string(port::TrimAsciiWhitespace(line.substr(colon + 1))));
  }
}

void AppendHeaders(std::string* out, const HeaderList& headers) {
  for (const auto& [name, value] : headers) {
    *out += name;
    *out += ": ";
    *out += value;
    *out += "\r\n";
  }
}

void AppendResponsePart(std::string* out, std::string_view boundary,
                        const BatchSubResponse& response) {
  *out += "--";
  *out += boundary;
  *out +=
      "\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 ";
  *out += std::to_string(response.status);
  *out += ' ';
  *out += response.reason;
  *out += "\r\n";
  AppendHeaders(out, response.headers);
  *out += "\r\n";
  *out += response.body;
  *out += "\r\n";
}

bool IsMultipartMixed(std::string_view content_type) {
  return StartsWithIgnoringCase(port::TrimAsciiWhitespace(content_type), "multipart/mixed");
}

bool IsApplicationHttp(const MimePart& part) {
  const std::string* type = part.Header("Content-Type");
  return type != nullptr &&
         StartsWithIgnoringCase(port::TrimAsciiWhitespace(*type), "application/http");
}

// "HTTP/1.1 204 No Content" → status and reason.
Result<BatchSubResponse> ReadResponse(const MimePart& part) {
  PARTKV_ASSIGN_OR_RETURN(HttpMessageText message, SplitHttpMessage(part.body));
  const std::string_view line = message.start_line;
  auto bad = [&] {
    return Status::InvalidArgument("malformed status line '" + std::string(line.substr(0, 80)) +
                                   "' (not \"HTTP/1.x NNN reason\")");
  };
  if (line.size() < 12 || !line.starts_with("HTTP/1.") || line[8] != ' ') return bad();
  int status = 0;
  for (size_t i = 9; i < 12; ++i) {
    if (line[i] < '0' || line[i] > '9') return bad();
    status = status * 10 + (line[i] - '0');
  }
  if (status < 100 || (line.size() > 12 && line[12] != ' ')) return bad();
  BatchSubResponse response;
  response.status = status;
  response.reason = line.size() > 13 ? std::string(line.substr(13)) : std::string();
  response.headers = std::move(message.headers);
  response.body = std::move(message.body);
  return response;
}

// The index a failed operation's error message starts with ("2:The specified entity already
// exists."), from a JSON error body (odata.error.message.value; OData v4's error.message) or an
// XML one (<message>…</message>, with or without a namespace prefix).
std::optional<size_t> MessageIndex(std::string_view body) {
  size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return std::nullopt;
  body.remove_prefix(first);
  std::string message;
  if (body.front() == '{') {
    nlohmann::json error =
        nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
    if (!error.is_object()) return std::nullopt;
    for (const char* key : {"odata.error", "error"}) {
      auto outer = error.find(key);
      if (outer == error.end() || !outer->is_object()) continue;
      auto m = outer->find("message");
      if (m == outer->end()) continue;
      if (m->is_string()) {
        message = m->get<std::string>();
      } else if (m->is_object()) {
        auto value = m->find("value");
        if (value != m->end() && value->is_string()) message = value->get<std::string>();
      }
      break;
    }
  } else if (body.front() == '<') {
    for (size_t at = body.find('<'); at != std::string_view::npos; at = body.find('<', at + 1)) {
      size_t name_end = body.find_first_of(" \t\r\n>/", at + 1);
      if (name_end == std::string_view::npos) break;
      std::string_view name = body.substr(at + 1, name_end - at - 1);
      if (size_t colon = name.find(':'); colon != std::string_view::npos) {
        name.remove_prefix(colon + 1);
      }
      if (name != "message") continue;
      size_t open_end = body.find('>', name_end);
      if (open_end == std::string_view::npos) break;
      size_t close = body.find('<', open_end + 1);
      message = std::string(body.substr(open_end + 1, close == std::string_view::npos
                                                          ? std::string_view::npos
                                                          : close - open_end - 1));
      break;
    }
  }
  // Up to six digits: an index, not any number a message might start with.
  size_t digits = 0;
  while (digits < message.size() && digits <= 6 && message[digits] >= '0' &&
         message[digits] <= '9') {
    ++digits;
  }
  if (digits == 0 || digits > 6 || digits >= message.size() || message[digits] != ':') {
    return std::nullopt;
  }
  return static_cast<size_t>(std::stoul(message.substr(0, digits)));
}

// failed_index of a failed changeset's one response (multipart.h, ParseBatchResponse): the
// message's index, else the operation whose content_id the response's Content-ID is.
std::optional<size_t> FailedIndex(const BatchSubResponse& response,
                                  const std::string* part_content_id,
                                  std::span<const std::string> content_ids) {
  if (std::optional<size_t> by_message = MessageIndex(response.body)) return by_message;
  const std::string* content_id = response.Header("Content-ID");
  if (content_id == nullptr) content_id = part_content_id;
  if (content_id == nullptr) return std::nullopt;
  for (size_t i = 0; i < content_ids.size(); ++i) {
    if (content_ids[i] == *content_id) return i;
  }
  return std::nullopt;
}

}  // namespace

const std::string* FindHeader(const HeaderList& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoringCase(key, name)) return &value;
  }
  return nullptr;
}

Result<HttpMessageText> SplitHttpMessage(std::string_view text) {
  size_t at = 0;
  std::string_view line;
  do {
    if (at >= text.size()) return Status::InvalidArgument("the message has no start line");
    line = NextLine(text, &at);
  } while (port::TrimAsciiWhitespace(line).empty());
  HttpMessageText message;
  message.start_line = std::string(line);
  PARTKV_ASSIGN_OR_RETURN(message.headers, ReadHeaders(text, &at));
  message.body = std::string(text.substr(at));
  return message;
}

std::string BoundaryOf(std::string_view content_type) {
  size_t at = content_type.find("boundary=");
  if (at == std::string_view::npos) return "";
  std::string_view b = content_type.substr(at + 9);
  b = b.substr(0, b.find(';'));
  b = port::TrimAsciiWhitespace(b);
  if (b.size() >= 2 && b.front() == '"' && b.back() == '"') b = b.substr(1, b.size() - 2);
  return std::string(b);
}

Result<std::vector<MimePart>> SplitMultipart(std::string_view body, std::string_view boundary) {
  if (boundary.empty()) {
    return Status::InvalidArgument("the multipart Content-Type has no boundary");
  }
  const std::string delimiter = "--" + std::string(boundary);
  std::vector<MimePart> parts;
  // The first delimiter may open the body or follow a preamble line.
  size_t at = body.starts_with(delimiter) ? 0 : body.find("\n" + delimiter);
  if (at == std::string_view::npos) {
    return Status::InvalidArgument("the body has no '" + delimiter + "' delimiter");
  }
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
    if (rest.ends_with("\r\n")) {
      rest.remove_suffix(2);
    } else if (rest.ends_with("\n")) {
      rest.remove_suffix(1);
    }
    part.body = std::string(rest);
    parts.push_back(std::move(part));
    at = next + 1;
  }
}

std::string BatchRequestBody(std::string_view batch_boundary, std::string_view changeset_boundary,
                             std::span<const BatchSubRequest> operations) {
  // @azure/data-tables joins its pieces with CRLF: the batch part's header block, then each
  // operation, then the closing delimiters. Hence the blank preamble line of the changeset and,
  // before a body, the extra blank line (the SDK pushes a CRLF as a piece of its own).
  std::string out = "--";
  out += batch_boundary;
  out += "\r\ncontent-type: multipart/mixed; boundary=";
  out += changeset_boundary;
  out += "\r\n\r\n";
  for (const BatchSubRequest& op : operations) {
    out += "\r\n--";
    out += changeset_boundary;
    out += "\r\ncontent-type: application/http\r\ncontent-transfer-encoding: binary\r\n";
    if (op.content_id) {
      out += "content-id: ";
      out += *op.content_id;
      out += "\r\n";
    }
    out += "\r\n";
    out += op.method;
    out += ' ';
    out += op.url;
    out += " HTTP/1.1\r\n";
    AppendHeaders(&out, op.headers);
    out += "\r\n";
    if (!op.body.empty()) {
      out += "\r\n";
      out += op.body;
    }
  }
  out += "\r\n--";
  out += changeset_boundary;
  out += "--\r\n--";
  out += batch_boundary;
  out += "--\r\n";
  return out;
}

std::string BatchResponseBody(std::string_view batch_boundary, std::string_view changeset_boundary,
                              std::span<const BatchSubResponse> responses) {
  std::string out;
  if (changeset_boundary.empty()) {
    for (const BatchSubResponse& response : responses) {
      AppendResponsePart(&out, batch_boundary, response);
    }
  } else {
    out += "--";
    out += batch_boundary;
    out += "\r\nContent-Type: multipart/mixed; boundary=";
    out += changeset_boundary;
    out += "\r\n\r\n";
    for (const BatchSubResponse& response : responses) {
      AppendResponsePart(&out, changeset_boundary, response);
    }
    out += "--";
    out += changeset_boundary;
    out += "--\r\n";
  }
  out += "--";
  out += batch_boundary;
  out += "--\r\n";
  return out;
}

Result<BatchResponse> ParseBatchResponse(std::string_view body, std::string_view content_type,
                                         std::span<const std::string> content_ids) {
  auto invalid = [](std::string_view what) {
    return Status::InvalidArgument("the $batch response " + std::string(what));
  };
  if (!IsMultipartMixed(content_type)) {
    return invalid("is not multipart/mixed (Content-Type '" +
                   std::string(content_type.substr(0, 80)) + "')");
  }
  const std::string boundary = BoundaryOf(content_type);
  if (boundary.empty()) return invalid("has a Content-Type without a boundary");
  auto outer = SplitMultipart(body, boundary);
  if (!outer.ok()) return invalid("does not split: " + std::string(outer.status().message()));
  if (outer->size() != 1) {
    return invalid("holds " + std::to_string(outer->size()) +
                   " parts; one changeset or one response was expected");
  }
  const MimePart& only = outer->front();
  std::vector<MimePart> parts;
  const std::string* only_type = only.Header("Content-Type");
  if (only_type != nullptr && IsMultipartMixed(*only_type)) {
    auto inner = SplitMultipart(only.body, BoundaryOf(*only_type));
    if (!inner.ok())
      return invalid("has a changeset that does not split: " +
                     std::string(inner.status().message()));
    if (inner->empty()) return invalid("has a changeset holding no response");
    parts = std::move(*inner);
  } else if (IsApplicationHttp(only)) {
    parts.push_back(only);
  } else {
    return invalid("holds a part of type '" + (only_type ? only_type->substr(0, 80) : "") +
                   "', neither a changeset (multipart/mixed) nor application/http");
  }

  BatchResponse result;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!IsApplicationHttp(parts[i])) {
      const std::string* type = parts[i].Header("Content-Type");
      return invalid("has a response (" + std::to_string(i) + ") of type '" +
                     (type ? type->substr(0, 80) : "") + "', not application/http");
    }
    auto response = ReadResponse(parts[i]);
    if (!response.ok()) {
      return invalid("has a malformed response (" + std::to_string(i) +
                     "): " + std::string(response.status().message()));
    }
    if (response->status < 200 || response->status > 299) result.failed = true;
    result.responses.push_back(std::move(*response));
  }
  if (!result.failed) return result;
  if (result.responses.size() != 1) {
    return invalid("holds " + std::to_string(result.responses.size()) +
                   " responses, some of them failures; a failed changeset is answered with the "
                   "failing operation's response alone");
  }
  result.failed_index =
      FailedIndex(result.responses.front(), parts.front().Header("Content-ID"), content_ids);
  return result;
}

}  // namespace partkv::protocol
