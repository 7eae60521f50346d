// One connection of partkv serve's HTTP layer (session.h): reading, admitting and executing its
// requests and writing their replies.

#include "tools/serve/session.h"

#include <array>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_suffix.hpp>
#include <boost/beast/http/error.hpp>
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "tools/serve/errors.h"
#include "tools/serve/service.h"
#include "tools/serve/services.h"

namespace partkv::serve {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using error_code = boost::system::error_code;

// After a refusal that leaves request bytes unread, the server stops sending, then reads and
// discards what the client still sends — for at most this long and this much — before closing,
// so that closing with unread data (a TCP reset) does not destroy the reply in flight.
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr size_t kLingerBytes = 8u << 20;
constexpr size_t kReadChunk = 64u << 10;  // reads of bytes to discard
// Reads of a request: a whole ordinary request in one read, without holding much per idle
// connection (the buffer keeps its capacity).
constexpr size_t kRequestReadChunk = 16u << 10;

// A reply the HTTP layer makes itself (not the service): the request id and Date every reply
// carries.
HttpReply Stamped(HttpReply reply) {
  reply.SetHeader("x-ms-request-id", NewRequestId());
  reply.SetHeader("Date", HttpDateNow());
  return reply;
}

}  // namespace

Clock::duration Seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

Session::Session(SessionHost& server, tcp::socket socket, bool admitted)
    : server_(server),
      options_(server.options()),
      socket_(std::move(socket)),
      strand_(socket_.get_executor()),
      admitted_(admitted) {
  server_.Register(this, admitted_);
}

Session::~Session() { server_.Unregister(this, admitted_); }

void Session::SetPhase(Phase phase, Clock::duration timeout) {
  phase_ = phase;
  deadline_.store(
      timeout == Clock::duration::zero() ? 0 : (Clock::now() + timeout).time_since_epoch().count(),
      std::memory_order_relaxed);
}

void Session::Start() {
  error_code ec;
  socket_.non_blocking(true, ec);  // Send's first write_some must not block
  tcp::endpoint remote = socket_.remote_endpoint(ec);
  if (!ec) remote_addr_ = remote.address().to_string();
  tcp::endpoint local = socket_.local_endpoint(ec);
  if (!ec) {
    std::string host = local.address().to_string();
    if (local.address().is_v6()) host = "[" + host + "]";
    local_base_url_ = "http://" + host + ":" + std::to_string(local.port());
  }
  asio::dispatch(strand_, [self = shared_from_this()] {
    if (!self->admitted_) {
      HttpReply reply = ErrorReply(MakeError(503, "ServerBusy",
                                             "the server has as many connections open as "
                                             "--max-connections allows; retry later"));
      reply.SetHeader("Retry-After", "1");
      self->Send(Stamped(std::move(reply)), true);
      return;
    }
    if (self->server_.stopping()) return self->Close();
    self->SetPhase(Phase::kFresh, Seconds(self->options_.header_timeout_s));
    self->WaitForRequest();
  });
}

// Starts on the next request: the bytes already read (pipelined) first, else the socket's.
void Session::WaitForRequest() {
  parser_.emplace(options_);
  service_ = nullptr;
  auth_ = AuthResult();
  timed_out_ = false;
  header_done_ = false;
  if (buffer_.size() > 0) {
    SetPhase(Phase::kHeader, Seconds(options_.header_timeout_s));
    return Parse();
  }
  ReadMore();
}

// One read of whatever the client has sent, into the buffer, then Parse.
void Session::ReadMore() {
  socket_.async_read_some(
      buffer_.prepare(kRequestReadChunk),
      asio::bind_executor(
          strand_, [self = shared_from_this()](error_code ec, size_t n) { self->OnRead(ec, n); }));
}

void Session::OnRead(error_code ec, size_t n) {
  if (phase_ == Phase::kClosed) return;
  buffer_.commit(n);
  if (n > 0 && (phase_ == Phase::kFresh || phase_ == Phase::kIdle)) {
    // The first byte of a request: from now on the header timeout runs.
    SetPhase(Phase::kHeader, Seconds(options_.header_timeout_s));
  }
  if (ec) {
    if (timed_out_) return OnReadError(ec);
    if (ec == asio::error::eof && header_done_) {
      // The client ended its side mid-body: the request cannot complete.
      return OnReadError(http::error::partial_message);
    }
    return Close();  // gone between requests or mid-header: nothing to answer
  }
  Parse();
}

// Feeds the buffered bytes to the parser: the header once it is whole (OnHeader), then the
// body as it comes; reads more while the request is incomplete. Bytes past the end of the
// request stay in the buffer for the next one (pipelining).
void Session::Parse() {
  while (buffer_.size() > 0 && !parser_->is_done()) {
    error_code ec;
    size_t used = parser_->put(buffer_.data(), ec);
    buffer_.consume(used);
    if (ec == http::error::need_more) break;
    if (ec) return OnReadError(ec);
    if (!header_done_ && parser_->is_header_done()) {
      header_done_ = true;
      return OnHeader();  // continues with ContinueBody or answers
    }
    if (used == 0) break;
  }
  if (header_done_ && parser_->is_done()) return Execute();
  ReadMore();
}

// The request is admitted and has a body: read it (what is buffered first).
void Session::ContinueBody() {
  SetPhase(Phase::kBody, Seconds(options_.body_timeout_s));
  parser_->eager(true);  // each put takes all the body bytes it is given
  Parse();
}

void Session::OnReadError(error_code ec) {
  if (phase_ == Phase::kClosed) return;
  if (timed_out_) {
    return Refuse(408, "RequestTimeout",
                  phase_ == Phase::kBody
                      ? "the request's body did not arrive within --body-timeout"
                      : "the request's header did not arrive within --header-timeout");
  }
  if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
    if (parser_->target_too_long()) {
      return Refuse(
          414, "RequestUriTooLong",
          "the request target is over " + std::to_string(options_.max_target_bytes) + " bytes");
    }
    if (parser_->too_many_fields()) {
      return Refuse(431, "RequestHeaderFieldsTooLarge",
                    "the request has more than " + std::to_string(options_.max_header_fields) +
                        " header fields");
    }
    return Refuse(431, "RequestHeaderFieldsTooLarge",
                  "the request line and header fields are over " +
                      std::to_string(options_.max_header_bytes) + " bytes");
  }
  if (ec == http::error::body_limit) {
    return Refuse(413, "RequestBodyTooLarge", "the request body is over Azure's limit of 4 MiB");
  }
  if (ec.category() == make_error_code(http::error::end_of_stream).category() &&
      ec != http::error::end_of_stream && ec != http::error::partial_message) {
    return Refuse(400, "InvalidInput", "malformed HTTP request: " + ec.message());
  }
  Close();  // the client went away (or closed mid-request): nothing to answer
}

void Session::OnHeader() {
  HttpRequest& r = parser_->request();
  head_request_ = r.verb == "HEAD";
  keep_alive_ = parser_->keep_alive();
  r.method = r.verb == "PATCH" ? "MERGE" : r.verb;
  if (r.method == "POST") {
    std::string override_method = r.Header("X-HTTP-Method");
    if (!override_method.empty()) r.method = std::move(override_method);
  }
  FillTarget(r, parser_->target());
  r.remote_addr = remote_addr_;
  std::string host = r.Header("Host");
  r.base_url = host.empty() ? local_base_url_ : "http://" + host;
  if (r.verb == "OPTIONS") {  // CORS preflight: answered without authentication
    HttpReply reply;
    reply.status = 204;
    return Send(Stamped(std::move(reply)), !parser_->is_done() || !keep_alive_);
  }
  // Chunked is the only transfer coding a request may use (it is all the parser decodes);
  // anything else would reach the service still coded.
  if (auto te = r.headers.find("Transfer-Encoding");
      te != r.headers.end() && !beast::iequals(te->second, "chunked")) {
    return Refuse(501, "NotImplemented",
                  "Transfer-Encoding '" + te->second +
                      "' is not supported: send the body "
                      "with Content-Length or chunked");
  }
  service_ = &server_.services().Route(r);
  if (std::optional<HttpReply> refusal = service_->Admit(r, &auth_)) {
    if (options_.verbose) {
      std::fprintf(stderr, "%s %s -> %d %s\n", r.verb.c_str(), parser_->target().c_str(),
                   refusal->status, refusal->Header("x-ms-error-code").c_str());
    }
    // The body, if any, is not read: the connection cannot carry another request.
    return Send(std::move(*refusal), !parser_->is_done() || !keep_alive_);
  }
  if (parser_->is_done()) return Execute();
  if (parser_->expects_continue() && buffer_.size() == 0) {
    SetPhase(Phase::kWriting, Seconds(options_.write_timeout_s));
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    return asio::async_write(
        socket_, asio::buffer(kContinue.data(), kContinue.size()),
        asio::bind_executor(strand_, [self = shared_from_this()](error_code ec, size_t) {
          if (ec || self->phase_ == Phase::kClosed) return self->Close();
          self->ContinueBody();
        }));
  }
  ContinueBody();
}

void Session::Execute() {
  SetPhase(Phase::kExecuting, Clock::duration::zero());
  const HttpRequest& r = parser_->request();
  HttpReply reply;
  try {
    reply = service_->Handle(r, auth_);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "partkv serve: %s %s: internal error: %s\n", r.verb.c_str(),
                 parser_->target().c_str(), e.what());
    reply = ErrorReply(MakeError(500, "InternalError"));
  }
  if (options_.verbose) {
    std::fprintf(stderr, "%s %s -> %d %s\n", r.verb.c_str(), parser_->target().c_str(),
                 reply.status, reply.Header("x-ms-error-code").c_str());
  }
  Send(std::move(reply), !keep_alive_);
}

void Session::Refuse(int status, std::string_view code, std::string_view detail) {
  Send(Stamped(ErrorReply(MakeError(status, code, detail))), true);
}

void Session::Send(HttpReply reply, bool close) {
  if (phase_ == Phase::kClosed) return;
  close = close || server_.stopping();
  keep_alive_ = !close;
  body_ = std::move(reply.body);
  head_ = SerializeHead(reply, body_.size(), close);
  if (head_request_) body_.clear();
  // Most replies fit the socket's send buffer: written at once, without a trip through the
  // reactor. The rest of a large one goes out asynchronously.
  std::array<asio::const_buffer, 2> buffers{asio::buffer(head_), asio::buffer(body_)};
  const size_t total = head_.size() + body_.size();
  error_code ec;
  size_t written = socket_.write_some(buffers, ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) {
    ec.clear();
    written = 0;
  }
  if (ec || written == total) return OnWritten(ec);
  SetPhase(Phase::kWriting, Seconds(options_.write_timeout_s));
  beast::buffers_suffix<std::array<asio::const_buffer, 2>> rest(buffers);
  rest.consume(written);
  asio::async_write(
      socket_, rest,
      asio::bind_executor(
          strand_, [self = shared_from_this()](error_code ec, size_t) { self->OnWritten(ec); }));
}

void Session::OnWritten(error_code ec) {
  if (ec || phase_ == Phase::kClosed) return Close();
  head_.clear();
  body_.clear();
  body_.shrink_to_fit();
  if (!keep_alive_ || server_.stopping()) {
    // Stopping: no further request on this connection (a reply sent before the signal did not
    // say Connection: close; the client learns it from the close). Request bytes may still be
    // unread (a refused body, pipelined requests): linger.
    if (parser_ && parser_->is_done() && buffer_.size() == 0 && !timed_out_) return Close();
    // A client that timed out is slow by definition: a short linger, enough for the 408.
    return Linger(timed_out_ ? std::chrono::duration_cast<Clock::duration>(kLingerTime) / 8
                             : std::chrono::duration_cast<Clock::duration>(kLingerTime));
  }
  parser_.reset();
  SetPhase(Phase::kIdle, Seconds(options_.idle_timeout_s));
  if (buffer_.size() > 0) {
    // A pipelined request: run it from the io_context's queue, not from inside this reply's
    // call chain (the chain would grow with every request in the buffer).
    return asio::post(strand_, [self = shared_from_this()] {
      if (self->phase_ != Phase::kClosed) self->WaitForRequest();
    });
  }
  WaitForRequest();
}

void Session::Linger(Clock::duration how_long) {
  error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_send, ignored);
  SetPhase(Phase::kLingering, how_long);
  drained_ = 0;
  drain_buffer_ = std::make_unique<char[]>(kReadChunk);
  DrainSome();
}

void Session::DrainSome() {
  socket_.async_read_some(
      asio::buffer(drain_buffer_.get(), kReadChunk),
      asio::bind_executor(strand_, [self = shared_from_this()](error_code ec, size_t n) {
        self->drained_ += n;
        if (ec || self->phase_ == Phase::kClosed || self->drained_ >= kLingerBytes)
          return self->Close();
        self->DrainSome();
      }));
}

void Session::Close() {
  if (phase_ == Phase::kClosed) return;
  phase_ = Phase::kClosed;
  deadline_.store(0, std::memory_order_relaxed);
  error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

void Session::CheckDeadline(Clock::time_point now) {
  asio::post(strand_, [self = shared_from_this(), now] {
    Clock::rep d = self->deadline_.load(std::memory_order_relaxed);
    if (d == 0 || now.time_since_epoch().count() < d) return;  // moved on meanwhile
    switch (self->phase_) {
      case Phase::kHeader:
      case Phase::kBody: {
        // Cancel the read; its handler answers 408.
        self->timed_out_ = true;
        self->deadline_.store(0, std::memory_order_relaxed);
        error_code ignored;
        self->socket_.cancel(ignored);
        return;
      }
      case Phase::kExecuting:
        return;
      default:
        return self->Close();
    }
  });
}

void Session::OnShutdown() {
  asio::post(strand_, [self = shared_from_this()] {
    switch (self->phase_) {
      case Phase::kExecuting:
      case Phase::kWriting:
        return;  // the reply goes out with Connection: close (or within the grace)
      default:
        return self->Close();
    }
  });
}

void Session::ForceClose() {
  asio::post(strand_, [self = shared_from_this()] { self->Close(); });
}

}  // namespace partkv::serve
