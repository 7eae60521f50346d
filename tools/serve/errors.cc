// Azure Table's error replies (errors.h).

#include "tools/serve/errors.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <random>
#include <utility>

#include "partkv/value.h"
#include "tools/serve/xml.h"

namespace partkv::serve {
namespace {

// Azure's own sentences ([TEC], [CEC]).
std::string_view StandardMessage(std::string_view code) {
  if (code == "EntityAlreadyExists") return "The specified entity already exists.";
  if (code == "ResourceNotFound") return "The specified resource does not exist.";
  if (code == "TableNotFound") return "The table specified does not exist.";
  if (code == "TableAlreadyExists") return "The table specified already exists.";
  if (code == "UpdateConditionNotSatisfied") {
    return "The update condition specified in the request was not satisfied.";
  }
  if (code == "InvalidInput") return "One of the request inputs is not valid.";
  if (code == "OutOfRangeInput") return "One of the request inputs is out of range.";
  if (code == "InvalidResourceName") {
    return "The specifed resource name contains invalid characters.";
  }
  if (code == "PropertyValueTooLarge") {
    return "The property value exceeds the maximum allowed size (64KB). If the property value is "
           "a string, it is UTF-16 encoded and the maximum number of characters should be 32K or "
           "less.";
  }
  if (code == "EntityTooLarge") return "The entity is larger than the maximum allowed size (1MB).";
  if (code == "TooManyProperties") {
    return "The entity contains more properties than allowed. Each entity can include up to 252 "
           "properties to store data. Each entity also has 3 system properties.";
  }
  if (code == "PropertyNameInvalid") return "The property name is invalid.";
  if (code == "PropertyNameTooLong")
    return "The property name exceeds the maximum allowed length (255).";
  if (code == "InvalidDuplicateRow")
    return "The batch request contains multiple changes with same row key. An entity can appear "
           "only once in a batch request.";
  if (code == "CommandsInBatchActOnDifferentPartitions") {
    return "All commands in a batch must operate on same entity group.";
  }
  if (code == "AuthenticationFailed") {
    return "Server failed to authenticate the request. Make sure the value of Authorization "
           "header is formed correctly including the signature.";
  }
  if (code == "AuthorizationFailure")
    return "This request is not authorized to perform this operation.";
  if (code == "AuthorizationPermissionMismatch") {
    return "This request is not authorized to perform this operation using this permission.";
  }
  if (code == "AuthorizationResourceTypeMismatch") {
    return "This request is not authorized to perform this operation using this resource type.";
  }
  if (code == "AuthorizationServiceMismatch") {
    return "This request is not authorized to perform this operation using this service.";
  }
  if (code == "ServerBusy")
    return "The server is currently unable to receive requests. Please retry your request.";
  if (code == "TooManyRequests")
    return "The request rate is too large. Please retry after some time.";
  if (code == "RequestBodyTooLarge")
    return "The request body is too large and exceeds the maximum permissible limit.";
  if (code == "MissingRequiredHeader")
    return "An HTTP header that's mandatory for this request is not specified.";
  if (code == "InvalidHeaderValue")
    return "The value for one of the HTTP headers is not in the correct format.";
  if (code == "InvalidUri")
    return "The requested URI does not represent any resource on the server.";
  if (code == "UnsupportedHttpVerb") return "The resource doesn't support the specified HTTP verb.";
  if (code == "MethodNotAllowed")
    return "The requested method is not allowed on the specified resource.";
  if (code == "NotImplemented")
    return "The requested operation is not implemented on the specified resource.";
  if (code == "JsonFormatNotSupported") return "JSON format is not supported.";
  if (code == "InvalidXmlDocument") return "XML specified is not syntactically valid.";
  if (code == "InvalidQueryParameterValue") {
    return "Value for one of the query parameters specified in the request URI is invalid.";
  }
  if (code == "InternalError")
    return "The server encountered an internal error. Please retry the request.";
  // Answered by the HTTP layer (docs/serve.md "Limits and timeouts").
  if (code == "RequestTimeout") {
    return "The server did not receive the complete request within the permitted time.";
  }
  if (code == "RequestUriTooLong") return "The request URI exceeds the maximum permissible length.";
  if (code == "RequestHeaderFieldsTooLarge") {
    return "The request's header fields exceed the maximum permissible size or number.";
  }
  if (code == "UnsupportedHeader")
    return "One of the HTTP headers specified in the request is not supported.";
  return "";
}

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

// Whether a failed store call was reading or writing, from the library's message: the engine's
// context starts it ("read entity: ...", "write entity: ..."), RocksDB's own words follow
// ("While appending to file: ...", "While pread offset ...").
std::string_view IoDirection(std::string_view lower) {
  for (std::string_view w : {"while append", "while write", "pwrite", "sync", "while rename",
                             "for appending", "write entity", "build batch"}) {
    if (Contains(lower, w)) return "could not write";
  }
  for (std::string_view r : {"while pread", "while read", "random read", "sequential read"}) {
    if (Contains(lower, r)) return "could not read";
  }
  if (lower.starts_with("read") || lower.starts_with("query")) return "could not read";
  if (lower.starts_with("write") || lower.starts_with("store") || lower.starts_with("set") ||
      lower.starts_with("reserve") || lower.starts_with("build")) {
    return "could not write";
  }
  return "could not read or write";
}

// The detail of an I/O error the client may see: what failed, in words that name no file.
// RocksDB's messages end in strerror's text after the file's path, which is recognised here.
std::string IoErrorDetail(std::string_view message) {
  static constexpr std::pair<std::string_view, std::string_view> kReasons[] = {
      {"no space left on device", "no space left on device"},
      {"disk quota exceeded", "the disk quota is exceeded"},
      {"read-only file system", "the file system is read-only"},
      {"permission denied", "permission denied"},
      {"too many open files", "too many open files"},
      {"input/output error", "the device reported an input/output error"},
      {"cannot allocate memory", "out of memory"},
      {"no such file or directory", "one of its files is missing"},
  };
  std::string lower = Lower(message);
  std::string detail = "the store " + std::string(IoDirection(lower)) + ": ";
  for (const auto& [pattern, reason] : kReasons) {
    if (Contains(lower, pattern)) return detail + std::string(reason);
  }
  return detail + "an I/O error (the server's log has the details)";
}

// True when `text` seems to hold an absolute file path: a '/' at its start or after a space,
// quote, parenthesis or colon, followed by a name. Client input quoted in a message can look like
// one too; this only decides whether a message of the storage engine is shown.
bool MentionsPath(std::string_view text) {
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] != '/') continue;
    const bool starts =
        i == 0 || std::string_view(" '\"(:=").find(text[i - 1]) != std::string_view::npos;
    const unsigned char next = static_cast<unsigned char>(text[i + 1]);
    if (starts && (std::isalnum(next) || next == '.' || next == '_')) return true;
  }
  return false;
}

// Whether a NotFound or InvalidArgument is RocksDB's own about the store's files rather than
// the library's about the request: the engine passes RocksDB's status text on ("read entity:
// Invalid argument: ..."), and such a text naming a path is no answer for a client. The
// library's messages about keys, properties and filters never carry RocksDB's wording.
bool IsEngineFileError(std::string_view detail) {
  for (std::string_view prefix : {": NotFound: ", ": Invalid argument: ", ": Not implemented: "}) {
    if (Contains(detail, prefix)) return MentionsPath(detail);
  }
  return false;
}

// An internal failure: 500 with `detail` for the client, the status for the operator's log.
AzureError Internal(const Status& status, std::string_view detail) {
  AzureError e = MakeError(500, "InternalError", detail);
  e.log_detail = status.ToString();
  return e;
}

}  // namespace

AzureError MakeError(int status, std::string_view code, std::string_view detail) {
  AzureError e;
  e.status = status;
  e.code = std::string(code);
  e.message = std::string(StandardMessage(code));
  if (!detail.empty()) {
    if (!e.message.empty()) e.message += "\n";
    e.message += detail;
  }
  return e;
}

AzureError ErrorFor(const Status& status, Subject subject) {
  std::string_view detail = status.message();
  // A batch failure's message starts "operation N: "; the index travels separately.
  if (status.failed_op() >= 0 && detail.starts_with("operation ")) {
    if (size_t colon = detail.find(": "); colon != std::string_view::npos) {
      detail.remove_prefix(colon + 2);
    }
  }
  if ((status.IsNotFound() || status.IsInvalidArgument()) && IsEngineFileError(detail)) {
    return Internal(status, "the storage engine failed (the server's log has the details)");
  }
  switch (status.code()) {
    case Status::Code::kOk:
      return Internal(status, "a failed call reported no error");
    case Status::Code::kNotFound:
      if (subject == Subject::kEntityOperation && detail.starts_with("table '")) {
        return MakeError(404, "TableNotFound", detail);
      }
      return MakeError(404, "ResourceNotFound", detail);
    case Status::Code::kAlreadyExists:
      return subject == Subject::kTableOperation ? MakeError(409, "TableAlreadyExists", detail)
                                                 : MakeError(409, "EntityAlreadyExists", detail);
    case Status::Code::kPreconditionFailed:
      return MakeError(412, "UpdateConditionNotSatisfied", detail);
    case Status::Code::kInvalidArgument:
      // The library names the limit in its message; Azure has a code for some of them.
      if (detail.starts_with("property name '")) {
        return MakeError(400,
                         Contains(detail, "characters; the limit is") ? "PropertyNameTooLong"
                                                                      : "PropertyNameInvalid",
                         detail);
      }
      if (detail.starts_with("entity has ") && Contains(detail, "properties; the limit")) {
        return MakeError(400, "TooManyProperties", detail);
      }
      if (detail.starts_with("property '") && Contains(detail, " value is ") &&
          Contains(detail, "the limit is")) {
        return MakeError(400, "PropertyValueTooLarge", detail);
      }
      if (detail.starts_with("entity is ") && Contains(detail, "the limit is")) {
        return MakeError(400, "EntityTooLarge", detail);
      }
      if (detail.starts_with("invalid table name") || Contains(detail, "is reserved")) {
        return MakeError(400, "InvalidResourceName", detail);
      }
      return MakeError(400, "InvalidInput", detail);
    case Status::Code::kThrottled:
      return MakeError(503, "ServerBusy", detail);
    case Status::Code::kBusy:
      // The engine's own busy messages ("the storage engine has held writes back ...") help a
      // client decide when to retry; one carrying a path is not shown.
      if (MentionsPath(detail)) {
        AzureError e = MakeError(503, "ServerBusy", "the store is busy");
        e.log_detail = status.ToString();
        return e;
      }
      return MakeError(503, "ServerBusy", detail);
    case Status::Code::kPermissionDenied:
      // The store behind serve is local and never says this; a 403 is what it would mean.
      return MakeError(403, "AuthorizationFailure", detail);
    case Status::Code::kTrimmed:
      // No request of the Table service reads a change feed; were one to, the position is gone.
      return MakeError(410, "Gone", detail);
    case Status::Code::kCorruption:
      return Internal(status, "the store found damaged data (the server's log has the details)");
    case Status::Code::kIOError:
      return Internal(status, IoErrorDetail(detail));
  }
  return Internal(status, "an unexpected failure (the server's log has the details)");
}

std::string NewRequestId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng(), lo = rng();
  hi = (hi & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  // 8-4-4-4-12 hex digits; written by hand, as every reply carries one.
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(36, '-');
  size_t at = 0;
  auto put = [&](uint64_t bits, int digits) {
    for (int i = digits - 1; i >= 0; --i) id[at++] = kHex[(bits >> (4 * i)) & 0xF];
  };
  put(hi >> 32, 8), ++at, put(hi >> 16, 4), ++at, put(hi, 4), ++at, put(lo >> 48, 4), ++at;
  put(lo, 12);
  return id;
}

std::string HttpDate(std::time_t when) {
  std::tm tm{};
  gmtime_r(&when, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

std::string HttpDateNow() {
  // Every reply carries the date; it changes once a second.
  thread_local std::time_t cached_second = -1;
  thread_local std::string cached;
  std::time_t now = std::time(nullptr);
  if (now != cached_second) {
    cached = HttpDate(now);
    cached_second = now;
  }
  return cached;
}

namespace {

std::string ErrorText(const AzureError& error, std::string_view request_id,
                      std::string_view index_prefix) {
  auto now = std::chrono::system_clock::now();
  int64_t micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  return std::string(index_prefix) + error.message + "\nRequestId:" + std::string(request_id) +
         "\nTime:" + DateTime::FromUnixMicros(micros).ToString();
}

}  // namespace

namespace {

// The operator's line for an internal failure (errors.h): one line, so that logs stay greppable
// by request id.
void LogInternal(const AzureError& error, std::string_view request_id) {
  if (error.log_detail.empty()) return;
  std::string line = error.log_detail;
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::fprintf(stderr, "partkv serve: request %.*s: %d %s: %s\n",
               static_cast<int>(request_id.size()), request_id.data(), error.status,
               error.code.c_str(), line.c_str());
}

}  // namespace

std::string ErrorBody(const AzureError& error, std::string_view request_id,
                      std::string_view index_prefix) {
  LogInternal(error, request_id);
  std::string value = ErrorText(error, request_id, index_prefix);
  nlohmann::json body = {
      {"odata.error", {{"code", error.code}, {"message", {{"lang", "en-US"}, {"value", value}}}}}};
  // Replace invalid UTF-8 (a detail quoting client bytes) rather than throw.
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

HttpReply XmlErrorReply(const AzureError& error) {
  HttpReply reply;
  std::string request_id = NewRequestId();
  LogInternal(error, request_id);
  reply.status = error.status;
  reply.body =
      "<?xml version=\"1.0\" encoding=\"utf-8\"?><m:error xmlns:m=\"http://schemas.microsoft.com/"
      "ado/2007/08/dataservices/metadata\"><m:code>" +
      XmlEscape(error.code) + "</m:code><m:message xml:lang=\"en-US\">" +
      XmlEscape(ErrorText(error, request_id, "")) + "</m:message></m:error>";
  reply.SetHeader("Content-Type", "application/xml");
  reply.SetHeader("x-ms-error-code", error.code);
  reply.SetHeader("x-ms-request-id", request_id);
  return reply;
}

HttpReply ErrorReply(const AzureError& error, std::string_view index_prefix) {
  HttpReply reply;
  std::string request_id = NewRequestId();
  reply.status = error.status;
  reply.body = ErrorBody(error, request_id, index_prefix);
  reply.SetHeader("Content-Type",
                  "application/json;odata=minimalmetadata;streaming=true;charset=utf-8");
  reply.SetHeader("x-ms-error-code", error.code);
  reply.SetHeader("x-ms-request-id", request_id);
  return reply;
}

}  // namespace partkv::serve
