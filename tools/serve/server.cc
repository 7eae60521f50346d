// The HTTP/1.1 layer of partkv serve (server.h): Boost.Beast's parser over Asio sockets in,
// Services out.
//
// There are `threads` io_contexts, each run by one thread; a new connection goes to the next
// one in turn and stays there. So a connection's steps run on one thread, one at a time, without
// hopping between threads (one io_context shared by many threads hands every step to whichever
// thread is free: measured, that doubled the server's CPU per request), and a request being
// executed holds up only the connections of its own thread — none while there are no more
// busy connections than threads. A Session's steps:
//
//   wait for a byte ─▶ read the header ─▶ admit (authenticate) ─▶ read the body ─▶ execute ─▶ write
//        ▲                                                                                    │
//        └──────────────────────── keep-alive, pipelined bytes first ─────────────────────────┘
//
// Reading and writing are asynchronous, so a client that is slow or idle holds a socket but no
// thread; only "execute" (Service::Handle, which may wait on the store) occupies one. A request
// is admitted from its header alone: an unauthenticated request, or one whose body the service
// would not take, is refused before a byte of its body is read, so no body is ever buffered —
// let alone decompressed — for a client without a key.
//
// Deadlines are kept by one sweeper timer (every 100 ms) rather than a timer per operation: a
// session stores the deadline of its current phase in an atomic, the sweeper closes or times
// out the sessions past theirs. Shutdown goes through the same sweeper.

#include "tools/serve/server.h"

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <vector>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/core/buffers_suffix.hpp>

#include "tools/serve/auth.h"
#include "tools/serve/errors.h"
#include "tools/serve/request_parser.h"
#include "tools/serve/service.h"
#include "tools/serve/services.h"
#include "tools/serve/uri.h"

namespace partkv::serve {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using error_code = boost::system::error_code;

constexpr auto kSweepInterval = std::chrono::milliseconds(100);
// After a refusal that leaves request bytes unread, the server stops sending, then reads and
// discards what the client still sends — for at most this long and this much — before closing,
// so that closing with unread data (a TCP reset) does not destroy the reply in flight.
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr size_t kLingerBytes = 8u << 20;
constexpr size_t kReadChunk = 64u << 10;  // reads of bytes to discard
// Reads of a request: a whole ordinary request in one read, without holding much per idle
// connection (the buffer keeps its capacity).
constexpr size_t kRequestReadChunk = 16u << 10;

Clock::duration Seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// A reply the HTTP layer makes itself (not the service): the request id and Date every reply
// carries.
HttpReply Stamped(HttpReply reply) {
  reply.SetHeader("x-ms-request-id", NewRequestId());
  reply.SetHeader("Date", HttpDateNow());
  return reply;
}

class Server;

// One connection. Owned by the handlers in flight (shared_from_this); the server knows it by a
// raw pointer in its registry, which the destructor removes.
class Session : public std::enable_shared_from_this<Session> {
 public:
  enum class Phase : int {
    kFresh,      // accepted, no byte yet: header timeout, then closed silently
    kIdle,       // kept alive, waiting for the next request: idle timeout, closed silently
    kHeader,     // a request's header arriving: header timeout, then 408
    kBody,       // its body arriving: body timeout, then 408
    kExecuting,  // in Service::Handle: no deadline
    kWriting,    // a reply going out: write timeout, then closed
    kLingering,  // refused; draining what the client still sends before closing
    kClosed,
  };

  Session(Server& server, tcp::socket socket, bool admitted);
  ~Session();

  void Start();
  // From the sweeper (any thread): the deadline has passed, or the server is stopping.
  void CheckDeadline(Clock::time_point now);
  void OnShutdown();
  void ForceClose();
  Clock::rep deadline() const { return deadline_.load(std::memory_order_relaxed); }

 private:
  void SetPhase(Phase phase, Clock::duration timeout);
  void WaitForRequest();
  void ReadMore();
  void OnRead(error_code ec, size_t n);
  void Parse();
  void OnHeader();
  void ContinueBody();
  void Execute();
  void Refuse(int status, std::string_view code, std::string_view detail);
  void Send(HttpReply reply, bool close);
  void OnWritten(error_code ec);
  void Linger(Clock::duration how_long);
  void DrainSome();
  void Close();
  void OnReadError(error_code ec);

  Server& server_;
  const ServeOptions& options_;
  tcp::socket socket_;  // on its io_context (Server::Accept), which one thread runs
  asio::any_io_executor strand_;  // the socket's executor: the session's steps run one at a time
  const bool admitted_;  // counted against max_connections (false: it only gets the 503)
  std::string remote_addr_;
  std::string local_base_url_;
  beast::flat_buffer buffer_;
  std::optional<RequestParser> parser_;
  const Service* service_ = nullptr;
  AuthResult auth_;
  bool head_request_ = false;
  bool keep_alive_ = true;
  bool timed_out_ = false;
  bool header_done_ = false;  // OnHeader has run for the current request
  Phase phase_ = Phase::kFresh;  // on the session's thread
  std::atomic<Clock::rep> deadline_{0};  // 0 = none; read by the sweeper
  std::string head_;  // the reply being written
  std::string body_;
  size_t drained_ = 0;
  std::unique_ptr<char[]> drain_buffer_;
};

class Server {
 public:
  explicit Server(const ServeOptions& options)
      : options_(options), contexts_(MakeContexts(options.threads)), acceptor_(*contexts_[0]),
        accept_pause_(*contexts_[0]), sweeper_(*contexts_[0]) {}
  // Before Run.
  void set_services(const Services* services) { services_ = services; }

  // Binds and listens; the error names the address.
  Status Listen(int* port) {
    error_code ec;
    tcp::resolver resolver(*contexts_[0]);
    auto results = resolver.resolve(options_.host, std::to_string(options_.port),
                                    tcp::resolver::passive | tcp::resolver::numeric_service, ec);
    const std::string where = options_.host + ":" + std::to_string(options_.port);
    if (ec || results.empty()) {
      return Status::IOError("cannot listen on " + where + ": cannot resolve the host (" +
                             ec.message() + ")");
    }
    tcp::endpoint endpoint = results.begin()->endpoint();
    acceptor_.open(endpoint.protocol(), ec);
    // SO_REUSEADDR lets a restarted server bind past connections in TIME_WAIT; unlike
    // SO_REUSEPORT (never set) it does not let a second server share a port that is listened on.
    if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(options_.backlog, ec);
    if (ec) {
      std::string message = "cannot listen on " + where + ": " + ec.message();
      if (ec == asio::error::address_in_use) {
        message += " (in use by another program? --port 0 picks any free port)";
      }
      return Status::IOError(message);
    }
    *port = acceptor_.local_endpoint().port();
    return Status::OK();
  }

  // Serves on `threads` threads until Stop() and the last connection has ended.
  void Run() {
    Accept();
    Sweep();
    // Each io_context runs until the sweeper releases the guards (after the last connection).
    for (auto& context : contexts_) guards_.emplace_back(context->get_executor());
    std::vector<std::thread> threads;
    threads.reserve(contexts_.size() - 1);
    for (size_t i = 1; i < contexts_.size(); ++i) {
      threads.emplace_back([context = contexts_[i].get()] { context->run(); });
    }
    contexts_[0]->run();
    for (std::thread& t : threads) t.join();
  }

  // From any thread: stop accepting, close what is idle, give replies in progress the grace.
  void Stop() {
    asio::post(*contexts_[0], [this] {
      if (stopping_.exchange(true)) return;
      grace_end_ = Clock::now() + Seconds(options_.shutdown_grace_s);
      error_code ignored;
      acceptor_.close(ignored);
      for (const auto& session : Live()) session->OnShutdown();
    });
  }

  bool stopping() const { return stopping_.load(std::memory_order_relaxed); }
  const ServeOptions& options() const { return options_; }
  const Services& services() const { return *services_; }

  void Register(Session* s, bool admitted) {
    std::lock_guard lock(mu_);
    sessions_.insert(s);
    if (admitted) ++admitted_;
  }
  void Unregister(Session* s, bool admitted) {
    std::lock_guard lock(mu_);
    sessions_.erase(s);
    if (admitted) --admitted_;
  }

 private:
  // Strong references to the sessions alive now (one being destroyed is skipped).
  std::vector<std::shared_ptr<Session>> Live() {
    std::vector<std::shared_ptr<Session>> live;
    std::lock_guard lock(mu_);
    live.reserve(sessions_.size());
    for (Session* s : sessions_) {
      if (auto strong = s->weak_from_this().lock()) live.push_back(std::move(strong));
    }
    return live;
  }

  void Accept() {
    asio::io_context& context = *contexts_[next_context_++ % contexts_.size()];
    acceptor_.async_accept(context, [this](error_code ec, tcp::socket socket) {
      if (stopping()) return;
      if (!ec) {
        error_code ignored;
        socket.set_option(tcp::no_delay(true), ignored);
        bool admitted;
        {
          std::lock_guard lock(mu_);
          admitted = admitted_ < static_cast<size_t>(options_.max_connections);
        }
        std::make_shared<Session>(*this, std::move(socket), admitted)->Start();
      } else if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space ||
                 ec == asio::error::no_memory) {
        // Out of file descriptors: the pending connection stays queued and the listener
        // readable, so accepting again at once would spin. Pause; timeouts free descriptors.
        std::fprintf(stderr, "partkv serve: cannot accept a connection (%s); retrying in 100 ms\n",
                     ec.message().c_str());
        accept_pause_.expires_after(std::chrono::milliseconds(100));
        accept_pause_.async_wait([this](error_code) {
          if (!stopping()) Accept();
        });
        return;
      }
      Accept();
    });
  }

  void Sweep() {
    sweeper_.expires_after(kSweepInterval);
    sweeper_.async_wait([this](error_code ec) {
      if (ec) return;
      const auto now = Clock::now();
      auto live = Live();
      const bool past_grace = stopping() && now >= grace_end_;
      for (const auto& session : live) {
        if (past_grace) {
          session->ForceClose();
        } else if (Clock::rep d = session->deadline(); d != 0 && now.time_since_epoch().count() >= d) {
          session->CheckDeadline(now);
        }
      }
      live.clear();  // a session may end here, on this thread
      if (stopping()) {
        std::lock_guard lock(mu_);
        if (sessions_.empty()) {  // nothing left: let every io_context run out of work
          guards_.clear();
          return;
        }
      }
      Sweep();
    });
  }

  const ServeOptions& options_;
  const Services* services_ = nullptr;
  static std::vector<std::unique_ptr<asio::io_context>> MakeContexts(int threads) {
    std::vector<std::unique_ptr<asio::io_context>> contexts;
    for (int i = 0; i < std::max(1, threads); ++i) {
      contexts.push_back(std::make_unique<asio::io_context>(1));  // one thread runs it
    }
    return contexts;
  }

  std::vector<std::unique_ptr<asio::io_context>> contexts_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards_;
  size_t next_context_ = 0;  // the accept chain's, on contexts_[0]
  tcp::acceptor acceptor_;
  asio::steady_timer accept_pause_;  // the accept chain's, after running out of descriptors
  asio::steady_timer sweeper_;  // on contexts_[0], one wait at a time (its chain)
  std::atomic<bool> stopping_{false};
  Clock::time_point grace_end_;  // set by Stop's handler before stopping_ is seen by the sweeper
  std::mutex mu_;
  std::unordered_set<Session*> sessions_;
  size_t admitted_ = 0;
};

Session::Session(Server& server, tcp::socket socket, bool admitted)
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
  deadline_.store(timeout == Clock::duration::zero()
                      ? 0
                      : (Clock::now() + timeout).time_since_epoch().count(),
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
  socket_.async_read_some(buffer_.prepare(kRequestReadChunk),
                          asio::bind_executor(strand_, [self = shared_from_this()](error_code ec,
                                                                                   size_t n) {
    self->OnRead(ec, n);
  }));
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
      return Refuse(414, "RequestUriTooLong",
                    "the request target is over " + std::to_string(options_.max_target_bytes) +
                        " bytes");
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
  if (auto te = r.headers.find("Transfer-Encoding"); te != r.headers.end() &&
                                                     !beast::iequals(te->second, "chunked")) {
    return Refuse(501, "NotImplemented",
                  "Transfer-Encoding '" + te->second + "' is not supported: send the body "
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
    return asio::async_write(socket_, asio::buffer(kContinue.data(), kContinue.size()),
                             asio::bind_executor(strand_, [self = shared_from_this()](
                                                              error_code ec, size_t) {
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
  asio::async_write(socket_, rest,
                    asio::bind_executor(strand_, [self = shared_from_this()](error_code ec, size_t) {
    self->OnWritten(ec);
  }));
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
  socket_.async_read_some(asio::buffer(drain_buffer_.get(), kReadChunk),
                          asio::bind_executor(strand_, [self = shared_from_this()](error_code ec,
                                                                                   size_t n) {
    self->drained_ += n;
    if (ec || self->phase_ == Phase::kClosed || self->drained_ >= kLingerBytes) return self->Close();
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

}  // namespace

Status RunServe(const ServeOptions& options) {
  // Signals are taken by one thread with sigwait; every thread started from here inherits the
  // blocked mask, so no worker is ever interrupted by them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1);  // internal: ends the signal thread when the server stops itself
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  // Every connection is a descriptor, and so is every open file of the stores: take the hard
  // limit (Debian's soft limit of 1,024 would run out before --max-connections does).
  if (rlimit files; getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }

  // The address first: a port in use is reported before any store is opened.
  Server server(options);
  int port = 0;
  PARTKV_RETURN_IF_ERROR(server.Listen(&port));
  auto services = Services::Open(options);
  if (!services.ok()) return services.status();
  server.set_services(services->get());

  std::thread signal_thread([&server, signals] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig != SIGUSR1) {
      std::fprintf(stderr, "partkv serve: %s received, finishing requests in progress\n",
                   sig == SIGINT ? "SIGINT" : "SIGTERM");
    }
    server.Stop();
  });

  const auto& served = (*services)->served();
  std::string url = "http://" + options.host + ":" + std::to_string(port);
  std::printf("partkv serve: listening on %s/%s (store %s)\n", url.c_str(),
              served.front().account.c_str(), served.front().store_dir.c_str());
  for (size_t i = 1; i < served.size(); ++i) {
    std::printf("partkv serve: account %s at %s/%s (store %s)\n", served[i].account.c_str(),
                url.c_str(), served[i].account.c_str(), served[i].store_dir.c_str());
  }
  if (options.accounts.empty()) {
    std::printf("connection string: DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;"
                "TableEndpoint=%s/%s;\n",
                kDevAccountName, kDevAccountKey, url.c_str(), kDevAccountName);
  }
  std::fflush(stdout);

  server.Run();
  // Whether a signal or a failure ended serving, wake the signal thread so it can be joined.
  pthread_kill(signal_thread.native_handle(), SIGUSR1);
  signal_thread.join();
  services->reset();  // closes the stores after every request has answered
  std::fprintf(stderr, "partkv serve: stopped\n");
  return Status::OK();
}

}  // namespace partkv::serve
