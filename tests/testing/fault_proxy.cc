// FaultProxy (fault_proxy.h) on Boost.Beast over Asio: one io_context run by one thread, a
// coroutine per client connection. Everything but the rules and the counts (guarded by mu_) is
// touched on that thread only.

#include "tests/testing/fault_proxy.h"

#include <algorithm>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_set>

namespace partkv::testing {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

// Bodies larger than tests send are refused rather than held.
constexpr uint64_t kBodyLimit = 256u << 20;

auto Await(error_code& ec) { return asio::redirect_error(asio::use_awaitable, ec); }

// One client connection, its upstream connection and its stall timer.
struct Session {
  explicit Session(tcp::socket socket)
      : client(std::move(socket)), upstream(client.get_executor()), timer(client.get_executor()) {}

  void Close() {
    closed = true;
    error_code ignored;
    client.shutdown(tcp::socket::shutdown_both, ignored);
    client.close(ignored);
    upstream.close(ignored);
    timer.cancel();
  }

  tcp::socket client;
  tcp::socket upstream;
  asio::steady_timer timer;
  bool closed = false;  // after Close, nothing is started again
};

struct Counts {
  int received = 0;
  int forwarded = 0;
};

}  // namespace

class FaultProxy::Impl {
 public:
  Impl(std::string upstream_host, uint16_t upstream_port) : acceptor_(io_) {
    error_code ec;
    tcp::resolver resolver(io_);
    auto upstream = resolver.resolve(upstream_host, std::to_string(upstream_port),
                                     tcp::resolver::numeric_service, ec);
    if (ec || upstream.empty()) Die("cannot resolve the upstream " + upstream_host, ec);
    upstream_ = upstream.begin()->endpoint();
    tcp::endpoint local(asio::ip::make_address("127.0.0.1"), 0);
    acceptor_.open(local.protocol(), ec);
    if (!ec) acceptor_.bind(local, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) Die("cannot listen on 127.0.0.1", ec);
    port_ = acceptor_.local_endpoint().port();
    asio::co_spawn(io_, Accept(), asio::detached);
    thread_ = std::thread([this] { io_.run(); });
  }

  ~Impl() { Stop(); }

  void Stop() {
    std::lock_guard lock(stop_mu_);
    if (!thread_.joinable()) return;
    asio::post(io_, [this] {
      stopping_ = true;
      error_code ignored;
      acceptor_.close(ignored);
      for (const auto& session : sessions_) session->Close();
    });
    thread_.join();  // the io_context runs out of work once every coroutine has ended
  }

  uint16_t port() const { return port_; }

  void AddRule(Rule rule) {
    std::lock_guard lock(mu_);
    rules_.push_back(std::move(rule));
  }

  Counts CountsOf(std::string_view method, std::string_view target) const {
    std::lock_guard lock(mu_);
    auto it = counts_.find({std::string(method), std::string(target)});
    return it == counts_.end() ? Counts() : it->second;
  }

  int connections() const {
    std::lock_guard lock(mu_);
    return connections_;
  }

 private:
  [[noreturn]] static void Die(const std::string& what, const error_code& ec) {
    std::fprintf(stderr, "FaultProxy: %s: %s\n", what.c_str(), ec.message().c_str());
    std::abort();
  }

  // The first rule matching the request, used once; kForward when none does. Counts the request
  // as received.
  Rule Match(const std::string& method, const std::string& target) {
    std::lock_guard lock(mu_);
    ++counts_[{method, target}].received;
    for (auto it = rules_.begin(); it != rules_.end(); ++it) {
      if ((it->method.empty() || it->method == method) &&
          target.find(it->target_contains) != std::string::npos) {
        Rule rule = *it;
        if (--it->times <= 0) rules_.erase(it);
        return rule;
      }
    }
    return Rule();
  }

  void CountForwarded(const std::string& method, const std::string& target) {
    std::lock_guard lock(mu_);
    ++counts_[{method, target}].forwarded;
  }

  asio::awaitable<void> Accept() {
    for (;;) {
      error_code ec;
      tcp::socket socket = co_await acceptor_.async_accept(Await(ec));
      if (ec || stopping_) co_return;
      {
        std::lock_guard lock(mu_);
        ++connections_;
      }
      auto session = std::make_shared<Session>(std::move(socket));
      sessions_.insert(session);
      asio::co_spawn(io_, Serve(session), asio::detached);
    }
  }

  asio::awaitable<void> Serve(std::shared_ptr<Session> session) {
    co_await Exchange(*session);
    session->Close();
    sessions_.erase(session);
  }

  // Requests of one client connection, one at a time, until it closes or a fault closes it.
  asio::awaitable<void> Exchange(Session& s) {
    beast::flat_buffer client_buffer;
    beast::flat_buffer upstream_buffer;
    for (;;) {
      error_code ec;
      http::request_parser<http::string_body> request_parser;
      request_parser.body_limit(kBodyLimit);
      co_await http::async_read(s.client, client_buffer, request_parser, Await(ec));
      if (ec || s.closed) co_return;
      http::request<http::string_body> request = request_parser.release();
      const std::string method(request.method_string());
      const std::string target(request.target());
      const Rule rule = Match(method, target);

      if (rule.fault == Fault::kDropBeforeForward) co_return;
      if (rule.fault == Fault::kRespond) {
        http::response<http::string_body> response(static_cast<http::status>(rule.status),
                                                   request.version());
        for (const auto& [name, value] : rule.headers) response.set(name, value);
        response.body() = rule.body;
        response.keep_alive(request.keep_alive());
        response.prepare_payload();
        co_await http::async_write(s.client, response, Await(ec));
        if (ec || s.closed || !request.keep_alive()) co_return;
        continue;
      }

      if (!s.upstream.is_open()) {
        upstream_buffer.clear();
        co_await s.upstream.async_connect(upstream_, Await(ec));
        if (ec || s.closed) co_return;
      }
      co_await http::async_write(s.upstream, request, Await(ec));
      if (ec || s.closed) co_return;
      CountForwarded(method, target);
      http::response_parser<http::string_body> response_parser;
      response_parser.body_limit(kBodyLimit);
      if (request.method() == http::verb::head) response_parser.skip(true);
      co_await http::async_read(s.upstream, upstream_buffer, response_parser, Await(ec));
      if (ec || s.closed) co_return;
      http::response<http::string_body> response = response_parser.release();
      if (!response.keep_alive()) {
        error_code ignored;
        s.upstream.close(ignored);
      }

      switch (rule.fault) {
        case Fault::kDropAfterForward:
          co_return;
        case Fault::kStall:
          s.timer.expires_after(rule.stall);
          co_await s.timer.async_wait(Await(ec));
          if (s.closed) co_return;
          break;
        case Fault::kTruncate: {
          response.chunked(false);
          response.content_length(response.body().size());
          http::response_serializer<http::string_body> serializer(response);
          co_await http::async_write_header(s.client, serializer, Await(ec));
          if (ec || s.closed) co_return;
          const size_t part = std::min(rule.truncate_to, response.body().size());
          co_await asio::async_write(s.client, asio::buffer(response.body().data(), part),
                                     Await(ec));
          co_return;
        }
        default:
          break;
      }
      const bool keep_alive = request.keep_alive() && response.keep_alive();
      co_await http::async_write(s.client, response, Await(ec));
      if (ec || s.closed || !keep_alive) co_return;
    }
  }

  asio::io_context io_{1};
  tcp::acceptor acceptor_;
  tcp::endpoint upstream_;
  uint16_t port_ = 0;
  bool stopping_ = false;                                  // on the io thread
  std::unordered_set<std::shared_ptr<Session>> sessions_;  // on the io thread
  std::thread thread_;
  std::mutex stop_mu_;

  mutable std::mutex mu_;
  std::deque<Rule> rules_;
  std::map<std::pair<std::string, std::string>, Counts> counts_;
  int connections_ = 0;
};

FaultProxy::FaultProxy(std::string upstream_host, uint16_t upstream_port)
    : impl_(std::make_unique<Impl>(std::move(upstream_host), upstream_port)) {}

FaultProxy::~FaultProxy() = default;

uint16_t FaultProxy::port() const { return impl_->port(); }

std::string FaultProxy::url() const { return "http://127.0.0.1:" + std::to_string(port()); }

void FaultProxy::AddRule(Rule rule) { impl_->AddRule(std::move(rule)); }

int FaultProxy::Received(std::string_view method, std::string_view target) const {
  return impl_->CountsOf(method, target).received;
}

int FaultProxy::Forwarded(std::string_view method, std::string_view target) const {
  return impl_->CountsOf(method, target).forwarded;
}

int FaultProxy::connections() const { return impl_->connections(); }

void FaultProxy::Stop() { impl_->Stop(); }

}  // namespace partkv::testing
