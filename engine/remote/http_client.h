// The remote backend's HTTP transport: HTTP/1.1 over libcurl, with keep-alive connections in a
// bounded pool, HTTPS through OpenSSL verified against the system CA store or a given CA file,
// and a deadline per request.
//
// One HttpClient serves any number of threads: Perform takes a connection (a libcurl easy
// handle, which keeps its connection alive between requests) from the pool, or waits while
// `max_connections` requests are in flight. Nothing here retries: the caller (remote_store.cc)
// decides from TransportFailure whether a request may be sent again.
//
// Messages never hold a secret: URLs in them pass through Redact (connection_string.h), so a
// SAS's signature is hidden.

#ifndef PARTKV_ENGINE_REMOTE_HTTP_CLIENT_H_
#define PARTKV_ENGINE_REMOTE_HTTP_CLIENT_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "partkv/result.h"

namespace partkv::remote {

struct HttpOptions {
  // A PEM file of the certificate authorities to trust for HTTPS; empty = the system's store.
  std::string ca_file;
  // The longest a TCP (and TLS) connection may take to be established.
  std::chrono::milliseconds connect_timeout{10'000};
  // The longest one request may take from its start to the last byte of its response.
  std::chrono::milliseconds request_timeout{30'000};
  // Connections kept open, and requests in flight, at most; a request beyond waits for one.
  size_t max_connections = 16;
  // A response body larger than this fails (IOError naming the limit) instead of being held.
  size_t max_response_bytes = 256u << 20;
  // The memory of every response being received at once, together: the capacity of their body
  // buffers, charged as the buffers grow, whatever the framing (Content-Length, chunked, or
  // until the connection closes). A response whose buffer would take the total past it fails
  // like one over max_response_bytes. A buffer grows by doubling, within what is left, and while
  // it grows its old copy lives for the copy: so the memory of the responses in flight stays
  // under 1.5 times this.
  size_t max_response_memory = 256u << 20;
  // The header lines of one response, in bytes; more fails the response (kTooLarge).
  size_t max_header_bytes = 256u << 10;
};

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;  // GET, POST, PUT, MERGE, DELETE, PATCH, HEAD
  std::string url;     // absolute, already percent-encoded
  HttpHeaders headers;
  std::string body;
};

struct HttpResponse {
  int status = 0;
  HttpHeaders headers;  // as received; names keep their case
  std::string body;
  // The value of header `name` (compared case-insensitively); "" when absent.
  std::string Header(std::string_view name) const;
};

// Why a request got no complete response.
struct TransportFailure {
  enum class Kind {
    kNone,       // there was a complete response
    kConnect,    // no connection (refused, unreachable, DNS): the request was not sent
    kTls,        // the TLS handshake or the peer's certificate failed: not sent
    kTimeout,    // connect_timeout or request_timeout passed
    kDropped,    // the connection closed or reset before a complete response
    kTruncated,  // the response ended before the length it announced
    kTooLarge,   // the response exceeded max_response_bytes, max_response_memory or
                 // max_header_bytes
    kOther,
  };
  Kind kind = Kind::kNone;
  // False only when the request certainly never reached the server (kConnect, kTls), so
  // sending it again cannot apply it twice.
  bool maybe_sent = false;
};

class HttpClient {
 public:
  // InvalidArgument when options are out of range (a zero timeout or pool size) or `ca_file`
  // cannot be read; IOError when libcurl cannot be initialised.
  static Result<std::unique_ptr<HttpClient>> Create(const HttpOptions& options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends `request` and returns the complete response, whatever its status. On a transport
  // failure returns IOError naming the kind, the method and the (redacted) URL and libcurl's
  // reason, and sets *failure (when given). Thread-safe.
  Result<HttpResponse> Perform(const HttpRequest& request, TransportFailure* failure = nullptr);

  const HttpOptions& options() const;
  // The bytes of body buffers charged to max_response_memory now (the requests in flight).
  size_t response_memory() const;
  // The most that was ever charged at once: never more than max_response_memory.
  size_t peak_response_memory() const;

 private:
  struct Impl;
  explicit HttpClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace partkv::remote

#endif  // PARTKV_ENGINE_REMOTE_HTTP_CLIENT_H_
