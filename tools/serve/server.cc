// The HTTP/1.1 layer of partkv serve (server.h): the listener, its accept loop and the server's
// lifetime; each connection is a Session (session.h), Boost.Beast's parser over Asio sockets in,
// Services out.
//
// There are `threads` io_contexts, each run by one thread; a new connection goes to the next
// one in turn and stays there. So a connection's steps run on one thread, one at a time, without
// hopping between threads (one io_context shared by many threads hands every step to whichever
// thread is free: measured, that doubled the server's CPU per request), and a request being
// executed holds up only the connections of its own thread — none while there are no more
// busy connections than threads.
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
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "engine/port/mutex.h"
#include "engine/port/thread_annotations.h"
#include "tools/serve/auth.h"
#include "tools/serve/services.h"
#include "tools/serve/session.h"

namespace partkv::serve {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using error_code = boost::system::error_code;

constexpr auto kSweepInterval = std::chrono::milliseconds(100);

class Server final : public SessionHost {
 public:
  explicit Server(const ServeOptions& options)
      : options_(options),
        contexts_(MakeContexts(options.threads)),
        acceptor_(*contexts_[0]),
        accept_pause_(*contexts_[0]),
        sweeper_(*contexts_[0]) {}
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

  bool stopping() const override { return stopping_.load(std::memory_order_relaxed); }
  const ServeOptions& options() const override { return options_; }
  const Services& services() const override { return *services_; }

  void Register(Session* s, bool admitted) override PARTKV_EXCLUDES(mu_) {
    port::MutexLock lock(&mu_);
    sessions_.insert(s);
    if (admitted) ++admitted_;
  }
  void Unregister(Session* s, bool admitted) override PARTKV_EXCLUDES(mu_) {
    port::MutexLock lock(&mu_);
    sessions_.erase(s);
    if (admitted) --admitted_;
  }

 private:
  // Strong references to the sessions alive now (one being destroyed is skipped).
  std::vector<std::shared_ptr<Session>> Live() PARTKV_EXCLUDES(mu_) {
    std::vector<std::shared_ptr<Session>> live;
    port::MutexLock lock(&mu_);
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
          port::MutexLock lock(&mu_);
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
        } else if (Clock::rep d = session->deadline();
                   d != 0 && now.time_since_epoch().count() >= d) {
          session->CheckDeadline(now);
        }
      }
      live.clear();  // a session may end here, on this thread
      if (stopping()) {
        port::MutexLock lock(&mu_);
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
  asio::steady_timer sweeper_;       // on contexts_[0], one wait at a time (its chain)
  std::atomic<bool> stopping_{false};
  Clock::time_point grace_end_;  // set by Stop's handler before stopping_ is seen by the sweeper
  // The sessions alive, registered by the threads that run them.
  port::Mutex mu_;
  std::unordered_set<Session*> sessions_ PARTKV_GUARDED_BY(mu_);
  size_t admitted_ PARTKV_GUARDED_BY(mu_) = 0;
};

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
    std::printf(
        "connection string: DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;"
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
