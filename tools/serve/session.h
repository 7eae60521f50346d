// One connection of partkv serve's HTTP layer (server.cc accepts them): Boost.Beast's parser
// over the connection's socket in, the account's Service out. A Session's steps:
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
// Deadlines: a session stores the deadline of its current phase in an atomic; the server's
// sweeper reads it and calls CheckDeadline once it has passed (no timer per operation).
//
// Threading: a session's steps run on its socket's io_context, which one thread runs, so one at
// a time; CheckDeadline, OnShutdown and ForceClose may be called from any thread (they post to
// it), deadline() too. Ownership: the handlers in flight own a session (shared_from_this); its
// SessionHost knows it by a raw pointer, registered by the constructor and removed by the
// destructor.

#ifndef PARTKV_TOOLS_SERVE_SESSION_H_
#define PARTKV_TOOLS_SERVE_SESSION_H_

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tools/serve/auth.h"
#include "tools/serve/http_types.h"
#include "tools/serve/request_parser.h"
#include "tools/serve/server.h"

namespace partkv::serve {

class Service;
class Services;
class Session;

// A timeout of ServeOptions, given in seconds, as a steady_clock duration.
std::chrono::steady_clock::duration Seconds(double s);

// What a Session needs of the server that accepted it, which must outlive it.
class SessionHost {
 public:
  virtual const ServeOptions& options() const = 0;
  // Set before the first session starts.
  virtual const Services& services() const = 0;
  // From any thread: the server is stopping, so no request follows the reply being sent.
  virtual bool stopping() const = 0;
  // A session registers itself when made and unregisters when destroyed; `admitted`: it counts
  // against max_connections.
  virtual void Register(Session* s, bool admitted) = 0;
  virtual void Unregister(Session* s, bool admitted) = 0;

 protected:
  ~SessionHost() = default;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  using Clock = std::chrono::steady_clock;

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

  // `admitted` false: the connection is over max_connections, and gets a 503 and is closed.
  Session(SessionHost& server, boost::asio::ip::tcp::socket socket, bool admitted);
  ~Session();

  // Once, on a session owned by a shared_ptr.
  void Start();
  // From the sweeper (any thread): the deadline has passed, or the server is stopping.
  void CheckDeadline(Clock::time_point now);
  void OnShutdown();
  void ForceClose();
  // The current phase's deadline as Clock ticks since its epoch; 0 = none.
  Clock::rep deadline() const { return deadline_.load(std::memory_order_relaxed); }

 private:
  void SetPhase(Phase phase, Clock::duration timeout);
  void WaitForRequest();
  void ReadMore();
  void OnRead(boost::system::error_code ec, size_t n);
  void Parse();
  void OnHeader();
  void ContinueBody();
  void Execute();
  void Refuse(int status, std::string_view code, std::string_view detail);
  void Send(HttpReply reply, bool close);
  void OnWritten(boost::system::error_code ec);
  void Linger(Clock::duration how_long);
  void DrainSome();
  void Close();
  void OnReadError(boost::system::error_code ec);

  SessionHost& server_;
  const ServeOptions& options_;
  // On its io_context (Server::Accept), which one thread runs.
  boost::asio::ip::tcp::socket socket_;
  // The socket's executor: the session's steps run one at a time.
  boost::asio::any_io_executor strand_;
  const bool admitted_;  // counted against max_connections (false: it only gets the 503)
  std::string remote_addr_;
  std::string local_base_url_;
  boost::beast::flat_buffer buffer_;
  std::optional<RequestParser> parser_;
  const Service* service_ = nullptr;
  AuthResult auth_;
  bool head_request_ = false;
  bool keep_alive_ = true;
  bool timed_out_ = false;
  bool header_done_ = false;             // OnHeader has run for the current request
  Phase phase_ = Phase::kFresh;          // on the session's thread
  std::atomic<Clock::rep> deadline_{0};  // 0 = none; read by the sweeper
  std::string head_;                     // the reply being written
  std::string body_;
  size_t drained_ = 0;
  std::unique_ptr<char[]> drain_buffer_;
};

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_SESSION_H_
