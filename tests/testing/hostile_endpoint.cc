// HostileEndpoint (hostile_endpoint.h) on POSIX sockets: an accepting thread and a thread per
// connection, each reading requests (head and Content-Length body) and writing the behaviour's
// answers byte by byte, so that a body can be as long, as framed and as cut short as the
// behaviour needs.

#include "tests/testing/hostile_endpoint.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace partkv::testing {
namespace {

constexpr std::string_view kAccountPath = "/devstoreaccount1";
// The development account's published key (the storage emulator's).
constexpr std::string_view kDevAccountKey =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
constexpr std::string_view kContinuationA = "1!8!c3R1Y2s-";
constexpr std::string_view kContinuationB = "1!8!YWdhaW4-";
constexpr std::string_view kSameRow = "1!4!cm93";
// The longest request head read; a request body is read and dropped up to this too.
constexpr size_t kMaxRequestBytes = 1 << 20;

struct Request {
  std::string method;
  std::string target;  // as sent: path and query
  std::string path;    // without the account and the query, percent-decoded
  std::string query;   // raw
  std::string authorization;
};

std::string PercentDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      out.push_back(
          static_cast<char>(std::strtol(std::string(text.substr(i + 1, 2)).c_str(), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// The decoded value of query parameter `name`; "" when absent.
std::string Param(std::string_view query, std::string_view name) {
  for (size_t at = 0; at <= query.size();) {
    size_t end = query.find('&', at);
    if (end == std::string_view::npos) end = query.size();
    std::string_view p = query.substr(at, end - at);
    if (p.size() > name.size() && p.substr(0, name.size()) == name && p[name.size()] == '=') {
      return PercentDecode(p.substr(name.size() + 1));
    }
    at = end + 1;
  }
  return "";
}

std::string JsonQuoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

}  // namespace

class HostileEndpoint::Impl {
 public:
  explicit Impl(Behaviour behaviour) : behaviour_(behaviour) {
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (listener_ < 0 ||
        bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        listen(listener_, 64) != 0) {
      std::perror("HostileEndpoint: cannot listen on 127.0.0.1");
      std::abort();
    }
    socklen_t length = sizeof address;
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { Accept(); });
  }

  ~Impl() { Stop(); }

  void Stop() {
    std::lock_guard stop(stop_mu_);
    if (!acceptor_.joinable()) return;
    stopping_ = true;
    shutdown(listener_, SHUT_RDWR);
    acceptor_.join();
    close(listener_);
    std::vector<std::thread> threads;
    {
      std::lock_guard lock(mu_);
      for (int fd : open_) shutdown(fd, SHUT_RDWR);
      threads.swap(threads_);
    }
    for (auto& t : threads) t.join();
  }

  uint16_t port() const { return port_; }
  uint64_t requests() const { return requests_.load(); }
  uint64_t bytes_sent() const { return bytes_sent_.load(); }

 private:
  void Accept() {
    for (;;) {
      int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (stopping_) return;
        if (errno == EINTR || errno == ECONNABORTED) continue;
        return;
      }
      std::lock_guard lock(mu_);
      if (stopping_) {
        close(fd);
        return;
      }
      // Heads and bodies go out in several writes: without this, each small write after the
      // first waits for the client's delayed acknowledgement (Nagle's algorithm).
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      open_.insert(fd);
      threads_.emplace_back([this, fd] { Serve(fd); });
    }
  }

  void Serve(int fd) {
    std::string buffer;
    for (;;) {
      Request request;
      if (!Read(fd, &buffer, &request)) break;
      ++requests_;
      if (!Answer(fd, request)) break;
    }
    {
      std::lock_guard lock(mu_);
      open_.erase(fd);
    }
    close(fd);
  }

  // Reads one request's head and body from fd (bytes after it stay in *buffer).
  bool Read(int fd, std::string* buffer, Request* request) {
    size_t end;
    while ((end = buffer->find("\r\n\r\n")) == std::string::npos) {
      if (buffer->size() > kMaxRequestBytes || !Receive(fd, buffer)) return false;
    }
    std::string head = buffer->substr(0, end);
    buffer->erase(0, end + 4);
    size_t line_end = head.find("\r\n");
    std::string line = head.substr(0, line_end);
    size_t s1 = line.find(' '), s2 = line.rfind(' ');
    if (s1 == std::string::npos || s2 <= s1) return false;
    request->method = line.substr(0, s1);
    request->target = line.substr(s1 + 1, s2 - s1 - 1);
    std::string_view target = request->target;
    size_t q = target.find('?');
    std::string_view path = target.substr(0, q);
    if (path.substr(0, kAccountPath.size()) == kAccountPath)
      path.remove_prefix(kAccountPath.size());
    request->path = PercentDecode(path);
    request->query = q == std::string_view::npos ? "" : std::string(target.substr(q + 1));
    size_t content_length = 0;
    for (size_t at = line_end; at != std::string::npos && at < head.size();) {
      size_t next = head.find("\r\n", at + 2);
      std::string h =
          head.substr(at + 2, next == std::string::npos ? std::string::npos : next - at - 2);
      size_t colon = h.find(':');
      if (colon != std::string::npos) {
        std::string name = h.substr(0, colon);
        std::string value = h.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.erase(0, 1);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (name == "content-length") content_length = std::strtoull(value.c_str(), nullptr, 10);
        if (name == "authorization") request->authorization = value;
      }
      at = next;
    }
    if (content_length > kMaxRequestBytes) return false;
    while (buffer->size() < content_length) {
      if (!Receive(fd, buffer)) return false;
    }
    buffer->erase(0, content_length);
    return true;
  }

  static bool Receive(int fd, std::string* buffer) {
    char chunk[16384];
    ssize_t got;
    do {
      got = recv(fd, chunk, sizeof chunk, 0);
    } while (got < 0 && errno == EINTR);
    if (got <= 0) return false;
    buffer->append(chunk, static_cast<size_t>(got));
    return true;
  }

  bool Send(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t put = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(put));
    }
    return true;
  }

  // A complete response with a Content-Length.
  bool Respond(int fd, int status, std::string_view reason, std::string_view body,
               std::string_view extra_headers = "") {
    std::string head = "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) +
                       "\r\nContent-Type: application/json;odata=minimalmetadata\r\n"
                       "x-ms-version: 2019-02-02\r\nContent-Length: " +
                       std::to_string(body.size()) + "\r\n" + std::string(extra_headers) + "\r\n";
    bytes_sent_ += body.size();
    return Send(fd, head) && Send(fd, body);
  }

  bool Answer(int fd, const Request& r) {
    const bool table_lookup = r.method == "GET" && r.path.rfind("/Tables('", 0) == 0;
    if (behaviour_ == Behaviour::kEcho403 && !table_lookup) {
      std::string echo = "Server failed to authenticate the request. Request: " + r.method + " " +
                         r.target + " Authorization: " + r.authorization;
      return Respond(fd, 403, "Server failed to authenticate the request",
                     "{\"odata.error\":{\"code\":\"AuthenticationFailed\",\"message\":{"
                     "\"lang\":\"en-US\",\"value\":" +
                         JsonQuoted(echo) + "}}}",
                     "x-ms-error-code: AuthenticationFailed\r\nx-ms-echo: " + r.target + "\r\n");
    }
    const std::string& path = r.path;
    if (path == "/Tables" && r.method == "GET") {
      return Respond(fd, 200, "OK",
                     "{\"odata.metadata\":\"" + Url() +
                         "/$metadata#Tables\",\"value\":["
                         "{\"TableName\":\"Hostile\"}]}");
    }
    if (path == "/Tables" && r.method == "POST") return Respond(fd, 204, "No Content", "");
    if (path.rfind("/Tables('", 0) == 0) {
      std::string name = path.substr(9, path.size() - 11);
      if (behaviour_ == Behaviour::kOtherKeys) name = "OtherTable";
      if (r.method == "DELETE") return Respond(fd, 204, "No Content", "");
      return Respond(fd, 200, "OK",
                     "{\"odata.metadata\":\"" + Url() +
                         "/$metadata#Tables/@Element\","
                         "\"TableName\":" +
                         JsonQuoted(name) + "}");
    }
    const size_t paren = path.find('(');
    if (paren == std::string::npos || r.method != "GET") {
      // A write: done, as a server that applied it would answer.
      return Respond(fd, 204, "No Content", "",
                     "ETag: W/\"datetime'2026-12-06T00%3A00%3A00.0000000Z'\"\r\n");
    }
    const std::string table = path.substr(1, paren - 1);
    if (path.substr(paren) == "()") return Query(fd, r, table);
    return PointRead(fd, table);
  }

  std::string Url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/devstoreaccount1";
  }

  static std::string Row(std::string_view pk, std::string_view rk) {
    return "{\"odata.etag\":\"W/\\\"datetime'2026-12-06T00%3A00%3A00.0000000Z'\\\"\","
           "\"PartitionKey\":" +
           JsonQuoted(pk) + ",\"RowKey\":" + JsonQuoted(rk) +
           ",\"Timestamp\":\"2026-12-06T00:00:00.0000000Z\",\"n\":1}";
  }

  bool Throttle(int fd) {
    if (behaviour_ == Behaviour::kRetryAfterOverflow) {
      return Respond(fd, 503, "Server Busy",
                     "{\"odata.error\":{\"code\":\"ServerBusy\",\"message\":{\"value\":\"busy\"}}}",
                     "Retry-After: 99999999999999999999\r\nx-ms-error-code: ServerBusy\r\n");
    }
    return Respond(fd, 429, "Too Many Requests",
                   "{\"odata.error\":{\"code\":\"TooManyRequests\",\"message\":{\"value\":\"x\"}}}",
                   "x-ms-retry-after-ms: 1e308\r\n");
  }

  bool PointRead(int fd, const std::string& table) {
    switch (behaviour_) {
      case Behaviour::kOtherKeys:
        return Respond(fd, 200, "OK", Row("otherpk", "otherrk"));
      case Behaviour::kOtherTableMetadata: {
        std::string row = Row("p", "r");
        row.insert(1, "\"odata.metadata\":\"" + Url() + "/$metadata#OtherTable/@Element\",");
        return Respond(fd, 200, "OK", row);
      }
      case Behaviour::kRetryAfterOverflow:
      case Behaviour::kRetryAfterMsOverflow:
        return Throttle(fd);
      default:
        return Respond(fd, 404, "Not Found",
                       "{\"odata.error\":{\"code\":\"ResourceNotFound\",\"message\":{\"value\":"
                       "\"The specified resource does not exist.\"}}}",
                       "x-ms-error-code: ResourceNotFound\r\n");
    }
  }

  std::string Page(const std::string& table, std::string_view rows) const {
    return "{\"odata.metadata\":\"" + Url() + "/$metadata#" + table + "\",\"value\":[" +
           std::string(rows) + "]}";
  }

  static std::string Continuation(std::string_view pk, std::string_view rk) {
    return "x-ms-continuation-NextPartitionKey: " + std::string(pk) +
           "\r\nx-ms-continuation-NextRowKey: " + std::string(rk) + "\r\n";
  }

  bool Query(int fd, const Request& r, const std::string& table) {
    const std::string sent = Param(r.query, "NextPartitionKey");
    switch (behaviour_) {
      case Behaviour::kSameContinuation:
        return Respond(fd, 200, "OK", Page(table, ""), Continuation(kContinuationA, kSameRow));
      case Behaviour::kSameContinuationSameRow: {
        // The row has the PartitionKey the query asks for ("PartitionKey eq '…'"), so only its
        // repetition is wrong.
        std::string filter = Param(r.query, "$filter");
        std::string pk = "p";
        const std::string_view kEq = "PartitionKey eq '";
        if (size_t at = filter.find(kEq); at != std::string::npos) {
          size_t end = filter.find('\'', at + kEq.size());
          pk = filter.substr(at + kEq.size(), end - at - kEq.size());
        }
        return Respond(fd, 200, "OK", Page(table, Row(pk, "r")),
                       Continuation(kContinuationA, kSameRow));
      }
      case Behaviour::kContinuationCycle:
        return Respond(
            fd, 200, "OK", Page(table, ""),
            Continuation(sent == kContinuationA ? kContinuationB : kContinuationA, kSameRow));
      case Behaviour::kEndlessChunkedBody:
        return Endless(fd, table, /*chunked=*/true);
      case Behaviour::kCloseDelimitedBody:
        return Endless(fd, table, /*chunked=*/false);
      case Behaviour::kOtherKeys:
        return Respond(fd, 200, "OK", Page(table, Row("otherpk", "otherrk")));
      case Behaviour::kOtherTableMetadata:
        return Respond(fd, 200, "OK", Page("OtherTable", Row("p", "r")));
      case Behaviour::kRetryAfterOverflow:
      case Behaviour::kRetryAfterMsOverflow:
        return Throttle(fd);
      case Behaviour::kMalformedPage:
        return Respond(fd, 200, "OK", "{\"value\":[[[1]]]}");
      case Behaviour::kLongContinuation:
        return Respond(fd, 200, "OK", Page(table, ""),
                       Continuation(std::string(90'000, 'A'), kSameRow));
      case Behaviour::kEcho403:
        break;
    }
    return false;
  }

  // A page that never ends: rows of 1 KiB, up to kMaxResponseBytes, in chunks or until close.
  bool Endless(int fd, const std::string& table, bool chunked) {
    std::string head =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json;odata=minimalmetadata\r\n";
    head += chunked ? "Transfer-Encoding: chunked\r\n\r\n" : "Connection: close\r\n\r\n";
    if (!Send(fd, head)) return false;
    std::string rows;
    const std::string row = Row("p", std::string(1000, 'r')) + ",";
    while (rows.size() < (256u << 10)) rows += row;
    std::string start = Page(table, "");
    start.resize(start.size() - 2);  // "…[" without "]}"
    auto emit = [&](std::string_view data) {
      bytes_sent_ += data.size();
      if (!chunked) return Send(fd, data);
      char size[32];
      std::snprintf(size, sizeof size, "%zx\r\n", data.size());
      std::string chunk = size;
      chunk.append(data);
      chunk += "\r\n";
      return Send(fd, chunk);
    };
    if (!emit(start)) return false;
    for (uint64_t sent = start.size(); sent < kMaxResponseBytes && !stopping_;
         sent += rows.size()) {
      if (!emit(rows)) return false;
    }
    return false;  // the connection is closed after it, ended or not
  }

  const Behaviour behaviour_;
  int listener_ = -1;
  uint16_t port_ = 0;
  std::thread acceptor_;
  std::atomic<bool> stopping_{false};
  std::mutex stop_mu_;
  std::mutex mu_;  // guards open_ and threads_
  std::set<int> open_;
  std::vector<std::thread> threads_;
  std::atomic<uint64_t> requests_{0};
  std::atomic<uint64_t> bytes_sent_{0};
};

std::optional<HostileEndpoint::Behaviour> HostileEndpoint::Parse(std::string_view name) {
  static constexpr std::pair<std::string_view, Behaviour> kNames[] = {
      {"same-continuation", Behaviour::kSameContinuation},
      {"same-continuation-same-row", Behaviour::kSameContinuationSameRow},
      {"continuation-cycle", Behaviour::kContinuationCycle},
      {"endless-chunked-body", Behaviour::kEndlessChunkedBody},
      {"close-delimited-body", Behaviour::kCloseDelimitedBody},
      {"echo-403", Behaviour::kEcho403},
      {"other-keys", Behaviour::kOtherKeys},
      {"other-table-metadata", Behaviour::kOtherTableMetadata},
      {"retry-after-overflow", Behaviour::kRetryAfterOverflow},
      {"retry-after-ms-overflow", Behaviour::kRetryAfterMsOverflow},
      {"malformed-page", Behaviour::kMalformedPage},
      {"long-continuation", Behaviour::kLongContinuation},
  };
  for (const auto& [n, b] : kNames) {
    if (n == name) return b;
  }
  return std::nullopt;
}

HostileEndpoint::HostileEndpoint(Behaviour behaviour) : impl_(std::make_unique<Impl>(behaviour)) {}

HostileEndpoint::~HostileEndpoint() = default;

uint16_t HostileEndpoint::port() const { return impl_->port(); }

std::string HostileEndpoint::url() const {
  return "http://127.0.0.1:" + std::to_string(port()) + "/devstoreaccount1";
}

std::string HostileEndpoint::connection_string() const {
  return "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" +
         std::string(kDevAccountKey) + ";TableEndpoint=" + url() + ";";
}

std::string HostileEndpoint::sas_url(std::string_view signature) const {
  return url() + "?sv=2019-02-02&ss=t&srt=sco&sp=rwdlacu&se=2099-01-01T00:00:00Z&sig=" +
         std::string(signature);
}

uint64_t HostileEndpoint::requests() const { return impl_->requests(); }

uint64_t HostileEndpoint::bytes_sent() const { return impl_->bytes_sent(); }

void HostileEndpoint::Stop() { impl_->Stop(); }

}  // namespace partkv::testing
