// HttpClient over libcurl's easy interface: one easy handle per pooled connection.
//
// An easy handle keeps the connection of its last request open (CURLOPT_MAXCONNECTS 1), so a
// handle is a connection: a request borrows one from the pool, and returns it when done. The
// options that never change are set when a handle is made; a request sets only its URL, method,
// header list and body. The header list is built in nodes and strings owned by the connection,
// reused from request to request, so a request allocates little beyond its response.
//
// libcurl resends a request by itself when a kept-alive connection closes before any byte of
// the response arrives. It cannot tell a connection the server closed while idle from one closed
// after the server applied the request, so a write could be applied twice: that choice is left
// to the caller. Two callbacks see to it. The pre-request callback, which libcurl calls on an
// established connection just before a request goes out, counts the attempts (so a failure
// knows whether anything may have been sent) and refuses a second one; the socket callback
// refuses a new connection once an attempt was made, so a resend ends before it connects. The
// caller sees kDropped.

#include "engine/remote/http_client.h"

#include <curl/curl.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <system_error>

#include "engine/port/mutex.h"
#include "engine/port/strings.h"
#include "engine/port/thread_annotations.h"
#include "engine/remote/connection_string.h"

namespace partkv::remote {
namespace {

// A body whose Content-Length is announced is reserved up to this much at once; beyond, it grows
// as it arrives, so a lying header cannot make us reserve max_response_bytes.
constexpr size_t kMaxReserve = 16u << 20;

// The memory budget of the responses in flight (HttpOptions::max_response_memory), shared by
// every connection of a client: a count of bytes charged, atomically.
class ResponseBudget {
 public:
  explicit ResponseBudget(size_t limit) : limit_(limit) {}

  // Charges as much as is left, up to `most`, and at least `least`; returns the bytes charged,
  // or 0 (nothing charged) when less than `least` is left.
  size_t Charge(size_t least, size_t most) {
    size_t used = used_.load(std::memory_order_relaxed);
    size_t take = 0;
    do {
      take = std::min(most, limit_ - used);
      if (take < least) return 0;
    } while (!used_.compare_exchange_weak(used, used + take, std::memory_order_relaxed));
    size_t peak = peak_.load(std::memory_order_relaxed);
    while (used + take > peak &&
           !peak_.compare_exchange_weak(peak, used + take, std::memory_order_relaxed)) {
    }
    return take;
  }
  void Release(size_t bytes) { used_.fetch_sub(bytes, std::memory_order_relaxed); }
  size_t used() const { return used_.load(std::memory_order_relaxed); }
  size_t peak() const { return peak_.load(std::memory_order_relaxed); }
  size_t limit() const { return limit_; }

 private:
  const size_t limit_;
  std::atomic<size_t> used_{0};
  std::atomic<size_t> peak_{0};
};

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

// A method token: letters only (GET, MERGE, ...), so nothing can be smuggled into the request
// line.
bool IsMethod(std::string_view method) {
  if (method.empty() || method.size() > 16) return false;
  for (char c : method) {
    if (!(c >= 'A' && c <= 'Z') && !(c >= 'a' && c <= 'z')) return false;
  }
  return true;
}

// A header name is an RFC 9110 token; a value has no line break or NUL.
bool IsHeaderName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f || c == ':' || c == '(' || c == ')' ||
        c == ',' || c == ';' || c == '"' || c == '/' || c == '[' || c == ']' || c == '?' ||
        c == '=' || c == '{' || c == '}' || c == '<' || c == '>' || c == '@' || c == '\\') {
      return false;
    }
  }
  return true;
}

bool IsHeaderValue(std::string_view value) {
  return value.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

// Methods that carry a body, so send a Content-Length even when it is empty (a server may
// answer 411 otherwise).
bool SendsBody(std::string_view method, std::string_view body) {
  return !body.empty() || method == "POST" || method == "PUT" || method == "MERGE" ||
         method == "PATCH";
}

const char* KindPhrase(TransportFailure::Kind kind) {
  switch (kind) {
    case TransportFailure::Kind::kNone:
      return "no failure";
    case TransportFailure::Kind::kConnect:
      return "cannot connect";
    case TransportFailure::Kind::kTls:
      return "TLS handshake or certificate failed";
    case TransportFailure::Kind::kTimeout:
      return "timed out";
    case TransportFailure::Kind::kDropped:
      return "connection dropped before a complete response";
    case TransportFailure::Kind::kTruncated:
      return "response truncated";
    case TransportFailure::Kind::kTooLarge:
      return "response too large";
    case TransportFailure::Kind::kOther:
      return "transfer failed";
  }
  return "transfer failed";
}

TransportFailure::Kind KindOf(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return TransportFailure::Kind::kConnect;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_USE_SSL_FAILED:
      return TransportFailure::Kind::kTls;
    case CURLE_OPERATION_TIMEDOUT:
      return TransportFailure::Kind::kTimeout;
    case CURLE_GOT_NOTHING:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
      return TransportFailure::Kind::kDropped;
    case CURLE_PARTIAL_FILE:
      return TransportFailure::Kind::kTruncated;
    default:
      return TransportFailure::Kind::kOther;
  }
}

// One pooled easy handle (and so one kept-alive connection), with the state its callbacks use.
// Its address is the callbacks' user data: it lives in a unique_ptr and never moves.
struct Connection {
  CURL* easy = nullptr;
  char error[CURL_ERROR_SIZE] = {};

  // The request's header lines and the list libcurl reads over them; only the first
  // `line_count` are the current request's (the rest keep their capacity for later).
  std::vector<std::string> lines;
  std::vector<curl_slist> nodes;
  size_t line_count = 0;

  // Set for each request.
  HttpResponse* response = nullptr;
  ResponseBudget* budget = nullptr;
  size_t max_body = 0;
  size_t charged = 0;       // the body buffer's capacity, charged to `budget`
  size_t header_bytes = 0;  // header lines received
  size_t max_header_bytes = 0;
  bool head = false;
  bool too_large = false;
  const char* too_large_what = "";  // which limit
  int attempts = 0;             // times the request started to go out (the pre-request callback)
  bool resend_refused = false;  // libcurl's own resend was stopped
  int block_status = 0;         // the status line of the header block being read

  ~Connection() { Close(); }

  void Close() {
    if (easy != nullptr) curl_easy_cleanup(easy);
    easy = nullptr;
  }

  std::string& NextLine() {
    if (line_count == lines.size()) lines.emplace_back();
    std::string& line = lines[line_count++];
    line.clear();
    return line;
  }

  curl_slist* LinkLines() {
    if (nodes.size() < line_count) nodes.resize(line_count);
    for (size_t i = 0; i < line_count; ++i) {
      nodes[i].data = lines[i].data();
      nodes[i].next = i + 1 < line_count ? &nodes[i + 1] : nullptr;
    }
    return line_count == 0 ? nullptr : nodes.data();
  }
};

// Grows c's body buffer to hold `need` bytes, charging the growth to the budget: by doubling, as
// std::string would, or by what the budget has left when that is less (never by less: growing by
// a sliver at a time would copy the whole body for each piece that arrives). The new buffer is
// made fresh and the old one copied in, so its capacity is exactly what was charged. False (and
// c->too_large, naming the limit) when the budget cannot hold `need`, or `need` is over max_body.
bool Grow(Connection* c, size_t need) {
  const size_t want = std::max(need, std::min(2 * c->charged, c->max_body));
  const size_t took = c->budget->Charge(need - c->charged, want - c->charged);
  if (took == 0) {
    c->too_large = true;
    c->too_large_what = "max_response_memory";
    return false;
  }
  if (need > c->max_body) {
    c->budget->Release(took);
    c->too_large = true;
    c->too_large_what = "max_response_bytes";
    return false;
  }
  std::string& body = c->response->body;
  std::string grown;
  grown.reserve(c->charged + took);
  grown.append(body);
  body.swap(grown);
  c->charged += took;
  return true;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* c = static_cast<Connection*>(user);
  const size_t length = size * count;
  c->header_bytes += length;
  if (c->header_bytes > c->max_header_bytes) {
    c->too_large = true;
    c->too_large_what = "max_header_bytes";
    return 0;  // anything but `length` aborts the transfer
  }
  std::string_view line(data, length);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  HttpHeaders& headers = c->response->headers;
  if (line.size() >= 5 && line.compare(0, 5, "HTTP/") == 0) {
    // A new response begins: an interim (1xx) one's headers are not the final response's.
    headers.clear();
    c->block_status = 0;
    size_t space = line.find(' ');
    if (space != std::string_view::npos && line.size() >= space + 4) {
      std::from_chars(line.data() + space + 1, line.data() + space + 4, c->block_status);
    }
    return length;
  }
  if (line.empty()) return length;
  if (line.front() == ' ' || line.front() == '\t') {  // an obsolete folded continuation
    if (!headers.empty()) {
      headers.back().second.push_back(' ');
      headers.back().second.append(port::TrimAsciiWhitespace(line));
    }
    return length;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return length;
  std::string_view name = port::TrimAsciiWhitespace(line.substr(0, colon));
  std::string_view value = port::TrimAsciiWhitespace(line.substr(colon + 1));
  headers.emplace_back(name, value);
  // No body follows a HEAD, a 204 or a 304 whatever Content-Length says.
  if (!c->head && c->block_status >= 200 && c->block_status != 204 && c->block_status != 304 &&
      EqualsIgnoreCase(name, "Content-Length")) {
    uint64_t announced = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), announced);
    if (ec == std::errc() && end == value.data() + value.size()) {
      if (announced > c->max_body) {
        c->too_large = true;
        c->too_large_what = "max_response_bytes";
        return 0;
      }
      const size_t reserve = static_cast<size_t>(std::min<uint64_t>(announced, kMaxReserve));
      if (reserve > c->charged && !Grow(c, reserve)) return 0;
    }
  }
  return length;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* c = static_cast<Connection*>(user);
  const size_t length = size * count;
  std::string& body = c->response->body;
  // Within what is charged (never above max_body), or grown: the budget is checked first, then
  // one response's limit.
  if (body.size() + length > c->charged && !Grow(c, body.size() + length)) return 0;
  body.append(data, length);
  return length;
}

int OnPrerequest(void* user, char*, char*, int, int) {
  auto* c = static_cast<Connection*>(user);
  if (++c->attempts == 1) return CURL_PREREQFUNC_OK;
  c->resend_refused = true;
  return CURL_PREREQFUNC_ABORT;
}

curl_socket_t OnOpenSocket(void* user, curlsocktype, curl_sockaddr* address) {
  auto* c = static_cast<Connection*>(user);
  if (c->attempts > 0) {  // a new connection for a request already sent: a resend
    c->resend_refused = true;
    return CURL_SOCKET_BAD;
  }
  return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

}  // namespace

std::string HttpResponse::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoreCase(key, name)) return value;
  }
  return {};
}

struct HttpClient::Impl {
  explicit Impl(const HttpOptions& o) : options(o), budget(o.max_response_memory) {}

  HttpOptions options;
  ResponseBudget budget;

  port::Mutex mu;
  port::CondVar freed{&mu};  // signalled when a connection goes back to `idle`
  // Most recently used last.
  std::vector<std::unique_ptr<Connection>> idle PARTKV_GUARDED_BY(mu);
  // Connections in existence, idle or lent (at most max_connections).
  size_t made PARTKV_GUARDED_BY(mu) = 0;

  std::unique_ptr<Connection> Acquire() PARTKV_EXCLUDES(mu) {
    {
      port::MutexLock lock(&mu);
      while (idle.empty() && made >= options.max_connections) freed.Wait();
      if (!idle.empty()) {
        std::unique_ptr<Connection> c = std::move(idle.back());
        idle.pop_back();
        return c;
      }
      ++made;
    }
    return std::make_unique<Connection>();
  }

  void Release(std::unique_ptr<Connection> c) PARTKV_EXCLUDES(mu) {
    {
      port::MutexLock lock(&mu);
      idle.push_back(std::move(c));
    }
    freed.Signal();
  }

  // Makes `c`'s easy handle with the options every request shares.
  Status Open(Connection& c) const {
    c.easy = curl_easy_init();
    if (c.easy == nullptr) return Status::IOError("HTTP client: curl_easy_init failed");
    CURL* e = c.easy;
    CURLcode r = CURLE_OK;
    auto set = [&](CURLoption option, auto value) {
      if (r == CURLE_OK) r = curl_easy_setopt(e, option, value);
    };
    set(CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for DNS timeouts: other threads run
    set(CURLOPT_ERRORBUFFER, c.error);
    set(CURLOPT_HEADERFUNCTION, &OnHeader);
    set(CURLOPT_HEADERDATA, &c);
    set(CURLOPT_WRITEFUNCTION, &OnBody);
    set(CURLOPT_WRITEDATA, &c);
    set(CURLOPT_PREREQFUNCTION, &OnPrerequest);
    set(CURLOPT_PREREQDATA, &c);
    set(CURLOPT_OPENSOCKETFUNCTION, &OnOpenSocket);
    set(CURLOPT_OPENSOCKETDATA, &c);
    set(CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout.count()));
    set(CURLOPT_TIMEOUT_MS, static_cast<long>(options.request_timeout.count()));
    set(CURLOPT_PROTOCOLS_STR, "http,https");
    set(CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
    set(CURLOPT_FOLLOWLOCATION, 0L);
    set(CURLOPT_MAXCONNECTS, 1L);            // this handle's one connection
    set(CURLOPT_PATH_AS_IS, 1L);             // the URL is sent as given, "/./" and "/../" included
    set(CURLOPT_HTTP_CONTENT_DECODING, 0L);  // no Accept-Encoding is sent, nothing decoded
    set(CURLOPT_SSL_VERIFYPEER, 1L);
    set(CURLOPT_SSL_VERIFYHOST, 2L);
    if (!options.ca_file.empty()) set(CURLOPT_CAINFO, options.ca_file.c_str());
    if (r != CURLE_OK) {
      c.Close();
      return Status::IOError(std::string("HTTP client: cannot set a libcurl option (") +
                             curl_easy_strerror(r) + ")");
    }
    return Status::OK();
  }

  // Sets the request's URL, method, headers and body on c.easy.
  void Prepare(Connection& c, const HttpRequest& request) {
    CURL* e = c.easy;
    curl_easy_setopt(e, CURLOPT_URL, request.url.c_str());
    const std::string& method = request.method;
    if (method == "HEAD") {
      curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, static_cast<const char*>(nullptr));
    } else if (!SendsBody(method, request.body)) {
      curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST,
                       method == "GET" ? static_cast<const char*>(nullptr) : method.c_str());
    } else {
      curl_easy_setopt(e, CURLOPT_POST, 1L);
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST,
                       method == "POST" ? static_cast<const char*>(nullptr) : method.c_str());
    }

    c.line_count = 0;
    bool has_content_type = false;
    for (const auto& [name, value] : request.headers) {
      std::string& line = c.NextLine();
      line.append(name);
      // "Name:" would remove a header libcurl adds; "Name;" sends it empty.
      if (value.empty()) {
        line.push_back(';');
      } else {
        line.append(": ");
        line.append(value);
      }
      has_content_type = has_content_type || EqualsIgnoreCase(name, "Content-Type");
    }
    // No "Expect: 100-continue" (a round trip before large bodies), and no form Content-Type
    // libcurl would add to a body sent without one (it would change what a signature covers).
    c.NextLine().append("Expect:");
    if (!has_content_type) c.NextLine().append("Content-Type:");
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, c.LinkLines());

    c.error[0] = '\0';
    c.budget = &budget;
    c.max_body = options.max_response_bytes;
    c.charged = 0;
    c.header_bytes = 0;
    c.max_header_bytes = options.max_header_bytes;
    c.head = method == "HEAD";
    c.too_large = false;
    c.too_large_what = "";
    c.attempts = 0;
    c.resend_refused = false;
    c.block_status = 0;
  }

  // The failure of a transfer that ended with `code`, and its message.
  Status Failure(const Connection& c, const HttpRequest& request, CURLcode code,
                 TransportFailure* failure) const {
    TransportFailure f;
    f.kind = KindOf(code);
    f.maybe_sent = c.attempts > 0;
    std::string reason = c.error[0] != '\0' ? c.error : curl_easy_strerror(code);
    if (c.too_large) {
      f.kind = TransportFailure::Kind::kTooLarge;
      const std::string_view what = c.too_large_what;
      if (what == "max_header_bytes") {
        reason = "the header lines exceed max_header_bytes (" +
                 std::to_string(options.max_header_bytes) + " bytes)";
      } else if (what == "max_response_memory") {
        reason = "the responses in flight together would hold more than max_response_memory (" +
                 std::to_string(options.max_response_memory) + " bytes)";
      } else {
        reason = "the body exceeds max_response_bytes (" +
                 std::to_string(options.max_response_bytes) +
                 " bytes), the most one response may hold";
      }
    } else if (c.resend_refused) {
      f.kind = TransportFailure::Kind::kDropped;
      reason = "a kept-alive connection closed before any response; not sent again";
    } else if (c.attempts > 0 && (f.kind == TransportFailure::Kind::kConnect ||
                                  f.kind == TransportFailure::Kind::kTls)) {
      f.kind = TransportFailure::Kind::kDropped;  // not this request's connection failing
    }
    if (failure != nullptr) *failure = f;
    return Status::IOError(std::string(KindPhrase(f.kind)) + ": " + request.method + " " +
                           Redact(request.url) + ": " + Redact(reason));
  }
};

HttpClient::HttpClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpClient::~HttpClient() = default;

const HttpOptions& HttpClient::options() const { return impl_->options; }

size_t HttpClient::response_memory() const { return impl_->budget.used(); }

size_t HttpClient::peak_response_memory() const { return impl_->budget.peak(); }

Result<std::unique_ptr<HttpClient>> HttpClient::Create(const HttpOptions& options) {
  if (options.connect_timeout.count() <= 0 || options.request_timeout.count() <= 0) {
    return Status::InvalidArgument("HttpOptions: the timeouts must be positive");
  }
  if (options.max_connections == 0) {
    return Status::InvalidArgument("HttpOptions: max_connections must be at least 1");
  }
  if (options.max_response_bytes == 0 || options.max_response_memory == 0 ||
      options.max_header_bytes == 0) {
    return Status::InvalidArgument("HttpOptions: the response limits must be positive");
  }
  if (!options.ca_file.empty()) {
    std::error_code ec;
    std::FILE* f = nullptr;
    if (!std::filesystem::is_regular_file(options.ca_file, ec) ||
        (f = std::fopen(options.ca_file.c_str(), "rb")) == nullptr) {
      return Status::InvalidArgument("HttpOptions: ca_file '" + options.ca_file +
                                     "' is not a readable file");
    }
    std::fclose(f);
  }
  // Once per process, before any handle exists; never cleaned up, as other code in the
  // process may use libcurl too.
  static std::once_flag once;
  static CURLcode global = CURLE_OK;
  std::call_once(once, [] { global = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (global != CURLE_OK) {
    return Status::IOError(std::string("HTTP client: curl_global_init failed (") +
                           curl_easy_strerror(global) + ")");
  }
  auto impl = std::make_unique<Impl>(options);
  return std::unique_ptr<HttpClient>(new HttpClient(std::move(impl)));
}

Result<HttpResponse> HttpClient::Perform(const HttpRequest& request, TransportFailure* failure) {
  if (failure != nullptr) *failure = TransportFailure();
  if (!IsMethod(request.method)) {
    return Status::InvalidArgument("HTTP request: '" + request.method + "' is not a method");
  }
  for (const auto& [name, value] : request.headers) {
    if (!IsHeaderName(name)) {
      return Status::InvalidArgument("HTTP request: a header name is empty or not a token");
    }
    if (!IsHeaderValue(value)) {
      return Status::InvalidArgument("HTTP request: the value of header " + name +
                                     " holds a line break or a NUL");
    }
  }
  Impl& impl = *impl_;
  std::unique_ptr<Connection> c = impl.Acquire();
  if (c->easy == nullptr) {
    if (Status s = impl.Open(*c); !s.ok()) {
      impl.Release(std::move(c));
      return s;
    }
  }
  HttpResponse response;
  c->response = &response;
  impl.Prepare(*c, request);
  CURLcode code = curl_easy_perform(c->easy);
  c->response = nullptr;
  // The body leaves the budget with the response: the budget bounds what is being received.
  impl.budget.Release(c->charged);
  c->charged = 0;
  if (code != CURLE_OK) {
    Status s = impl.Failure(*c, request, code, failure);
    c->Close();  // its connection may be broken: the next request opens another
    impl.Release(std::move(c));
    return s;
  }
  long status = 0;
  curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
  impl.Release(std::move(c));
  response.status = static_cast<int>(status);
  return response;
}

}  // namespace partkv::remote
