// Tests of engine/remote/http_client: requests and responses round-trip whole over kept-alive
// connections in a bounded pool, and each way a transport fails is reported as its kind, with
// whether the request may have reached the server, and without a signature in the message.
//
// The client talks to an Origin this file runs (Beast over Asio, plain or TLS, on its own
// thread), directly or through a FaultProxy (tests/testing/fault_proxy.h) that injects faults.

#include "engine/remote/http_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "tests/testing/fault_proxy.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace partkv::remote {
namespace {

using ::partkv::testing::StatusIs;

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;
using partkv::testing::FaultProxy;
using partkv::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;
using Kind = TransportFailure::Kind;

auto Await(error_code& ec) { return asio::redirect_error(asio::use_awaitable, ec); }

// An HTTP/1.1 server on 127.0.0.1 (port 0) for the client to talk to. It records every request
// and counts connections and requests in flight. Its answers, by target:
//   /bytes/N     N bytes with a Content-Length      /chunked/N   N bytes, chunked
//   /status/N    status N, the request's body        /redirect    302 to /elsewhere
//   /interim     a 103 with a Link header, then a 200 with X-Final
//   /hold        held until Release(), then 200
//   otherwise    200 with the request's body, X-Mixed-Case: Value, X-Echo-Method: the method;
//                to a HEAD, the head of an 11-byte body and no body
class Origin {
 public:
  struct Request {
    std::string method;
    std::string target;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    // The value of the header named exactly `name`, or nullopt.
    std::optional<std::string> Header(const std::string& name) const {
      for (const auto& [n, v] : headers) {
        if (beast::iequals(n, name)) return v;
      }
      return std::nullopt;
    }
  };

  // Plain HTTP when `tls` is null; else HTTPS with that context (which must outlive this).
  explicit Origin(ssl::context* tls = nullptr) : tls_(tls), acceptor_(io_) {
    tcp::endpoint local(asio::ip::make_address("127.0.0.1"), 0);
    acceptor_.open(local.protocol());
    acceptor_.bind(local);
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    asio::co_spawn(io_, Accept(), asio::detached);
    thread_ = std::thread([this] { io_.run(); });
  }

  ~Origin() {
    asio::post(io_, [this] {
      error_code ignored;
      acceptor_.close(ignored);
      for (const auto& s : sessions_) s->Close();
    });
    thread_.join();
  }

  uint16_t port() const { return port_; }
  std::string url() const {
    return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
  }

  std::vector<Request> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }
  int connections() const {
    std::lock_guard lock(mu_);
    return connections_;
  }
  int max_open() const {
    std::lock_guard lock(mu_);
    return max_open_;
  }
  int max_in_flight() const {
    std::lock_guard lock(mu_);
    return max_in_flight_;
  }

  // True once `n` requests are in flight at once; false if that does not happen within `wait`.
  bool WaitForInFlight(int n, std::chrono::milliseconds wait) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, wait, [&] { return in_flight_ >= n; });
  }

  // Answers the requests held at /hold, and every later one at once.
  void Release() {
    asio::post(io_, [this] {
      released_ = true;
      for (const auto& s : sessions_) s->timer.cancel();
    });
  }

 private:
  struct Session {
    explicit Session(tcp::socket s) : plain(std::move(s)), timer(plain.get_executor()) {}
    tcp::socket& socket() { return tls ? tls->next_layer() : plain; }
    void Close() {
      closed = true;
      error_code ignored;
      socket().close(ignored);
      timer.cancel();
    }
    tcp::socket plain;
    std::optional<ssl::stream<tcp::socket>> tls;  // over the socket moved out of `plain`
    asio::steady_timer timer;
    bool closed = false;
  };

  asio::awaitable<void> Accept() {
    for (;;) {
      error_code ec;
      tcp::socket socket = co_await acceptor_.async_accept(Await(ec));
      if (ec) co_return;
      auto session = std::make_shared<Session>(std::move(socket));
      sessions_.insert(session);
      {
        std::lock_guard lock(mu_);
        ++connections_;
        max_open_ = std::max(max_open_, ++open_);
      }
      asio::co_spawn(io_, Serve(session), asio::detached);
    }
  }

  asio::awaitable<void> Serve(std::shared_ptr<Session> s) {
    if (tls_ != nullptr) {
      s->tls.emplace(std::move(s->plain), *tls_);
      error_code ec;
      co_await s->tls->async_handshake(ssl::stream_base::server, Await(ec));
      if (!ec && !s->closed) co_await Exchange(*s->tls, *s);
    } else {
      co_await Exchange(s->plain, *s);
    }
    s->Close();
    sessions_.erase(s);
    std::lock_guard lock(mu_);
    --open_;
  }

  template <class Stream>
  asio::awaitable<void> Exchange(Stream& stream, Session& s) {
    beast::flat_buffer buffer;
    for (;;) {
      error_code ec;
      http::request_parser<http::string_body> parser;
      parser.body_limit(64u << 20);
      co_await http::async_read(stream, buffer, parser, Await(ec));
      if (ec || s.closed) co_return;
      http::request<http::string_body> request = parser.release();
      Record(request);
      const std::string target(request.target());
      while (target == "/hold" && !released_ && !s.closed) {
        s.timer.expires_at(asio::steady_timer::time_point::max());
        co_await s.timer.async_wait(Await(ec));
      }
      bool keep_alive = request.keep_alive();
      if (target == "/interim") {
        static const std::string kInterim =
            "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
            "HTTP/1.1 200 OK\r\nX-Final: yes\r\nContent-Length: 2\r\n\r\nok";
        co_await asio::async_write(stream, asio::buffer(kInterim), Await(ec));
      } else {
        http::response<http::string_body> response = Answer(request);
        keep_alive = keep_alive && response.keep_alive();
        co_await http::async_write(stream, response, Await(ec));
      }
      EndRequest();
      if (ec || s.closed || !keep_alive) co_return;
    }
  }

  http::response<http::string_body> Answer(const http::request<http::string_body>& request) {
    const std::string target(request.target());
    http::response<http::string_body> response(http::status::ok, request.version());
    response.keep_alive(request.keep_alive());
    auto number_after = [&](std::string_view prefix) -> std::optional<size_t> {
      if (target.rfind(prefix, 0) != 0) return std::nullopt;
      return std::stoul(target.substr(prefix.size()));
    };
    if (auto n = number_after("/bytes/")) {
      response.body() = std::string(*n, 'b');
    } else if (auto n = number_after("/chunked/")) {
      response.body() = std::string(*n, 'c');
      response.chunked(true);
      return response;
    } else if (auto n = number_after("/status/")) {
      response.result(static_cast<unsigned>(*n));
      response.body() = request.body();
    } else if (target == "/redirect") {
      response.result(http::status::found);
      response.set(http::field::location, "/elsewhere");
      response.body() = "moved";
    } else if (target == "/hold") {
      response.body() = "held";
    } else {
      response.set("X-Mixed-Case", "Value");
      response.set("X-Echo-Method", request.method_string());
      response.set(http::field::content_type, "application/octet-stream");
      if (request.method() == http::verb::head) {
        response.content_length(11);  // the head of the body a GET would get
        return response;
      }
      response.body() = request.body();
    }
    response.content_length(response.body().size());
    return response;
  }

  void Record(const http::request<http::string_body>& request) {
    Request r;
    r.method = std::string(request.method_string());
    r.target = std::string(request.target());
    for (const auto& field : request) {
      r.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    r.body = request.body();
    std::lock_guard lock(mu_);
    requests_.push_back(std::move(r));
    max_in_flight_ = std::max(max_in_flight_, ++in_flight_);
    changed_.notify_all();
  }

  void EndRequest() {
    std::lock_guard lock(mu_);
    --in_flight_;
  }

  ssl::context* const tls_;
  asio::io_context io_{1};
  tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  bool released_ = false;                                  // on the io thread
  std::unordered_set<std::shared_ptr<Session>> sessions_;  // on the io thread
  std::thread thread_;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::vector<Request> requests_;
  int connections_ = 0;
  int open_ = 0;
  int max_open_ = 0;
  int in_flight_ = 0;
  int max_in_flight_ = 0;
};

// A port on 127.0.0.1 that nothing listens on: bound by the system, then released.
uint16_t ClosedPort() {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

std::unique_ptr<HttpClient> MakeClient(HttpOptions options = {}) {
  Result<std::unique_ptr<HttpClient>> client = HttpClient::Create(options);
  EXPECT_OK(client);
  return client.ok() ? std::move(client).value() : nullptr;
}

HttpRequest MakeRequest(std::string method, std::string url, std::string body = "",
                        HttpHeaders headers = {}) {
  HttpRequest request;
  request.method = std::move(method);
  request.url = std::move(url);
  request.body = std::move(body);
  request.headers = std::move(headers);
  return request;
}

// The failure of a request that must fail: "KIND maybe_sent=B", or "ok" when it did not fail.
struct Failed {
  std::string summary;
  std::string message;
};
Failed Fail(HttpClient& client, const HttpRequest& request) {
  TransportFailure failure;
  failure.kind = Kind::kOther;  // Perform must overwrite it
  Result<HttpResponse> response = client.Perform(request, &failure);
  if (response.ok()) return {"ok " + std::to_string(response->status), ""};
  EXPECT_THAT(response, StatusIs(Status::Code::kIOError));
  static const std::map<Kind, std::string> kNames = {
      {Kind::kNone, "kNone"},         {Kind::kConnect, "kConnect"},
      {Kind::kTls, "kTls"},           {Kind::kTimeout, "kTimeout"},
      {Kind::kDropped, "kDropped"},   {Kind::kTruncated, "kTruncated"},
      {Kind::kTooLarge, "kTooLarge"}, {Kind::kOther, "kOther"}};
  return {kNames.at(failure.kind) + " maybe_sent=" + (failure.maybe_sent ? "true" : "false"),
          std::string(response.status().message())};
}

class HttpClientTest : public ::testing::Test {
 protected:
  Origin origin_;
};

TEST_F(HttpClientTest, EachMethodRoundTripsHeadersAndBinaryBody) {
  auto client = MakeClient();
  std::string body("a\0b\xff\r\n\0end", 10);
  for (std::string method : {"GET", "PUT", "POST", "MERGE", "DELETE", "PATCH"}) {
    SCOPED_TRACE(method);
    const size_t before = origin_.requests().size();
    Result<HttpResponse> response = client->Perform(
        MakeRequest(method, origin_.url() + "/Tables('t')?$filter=a%20eq%201", body,
                    {{"x-ms-version", "2019-02-02"}, {"Content-Type", "application/json"}}));
    ASSERT_OK(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, body);
    EXPECT_EQ(response->Header("x-echo-method"), method);
    // Names keep the case they were sent in.
    EXPECT_TRUE(std::any_of(response->headers.begin(), response->headers.end(),
                            [](const auto& h) { return h.first == "X-Mixed-Case"; }));
    std::vector<Origin::Request> seen = origin_.requests();
    ASSERT_EQ(seen.size(), before + 1);
    EXPECT_EQ(seen.back().method, method);
    EXPECT_EQ(seen.back().target, "/Tables('t')?$filter=a%20eq%201");
    EXPECT_EQ(seen.back().Header("x-ms-version"), "2019-02-02");
    EXPECT_EQ(seen.back().body, body);
  }
}

TEST_F(HttpClientTest, BodilessDeleteAndEmptyPutAreSentAsSuch) {
  auto client = MakeClient();
  ASSERT_OK(client->Perform(MakeRequest("DELETE", origin_.url() + "/t")));
  ASSERT_OK(client->Perform(MakeRequest("PUT", origin_.url() + "/t")));
  std::vector<Origin::Request> seen = origin_.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].method, "DELETE");
  EXPECT_EQ(seen[0].Header("Content-Length"), std::nullopt);
  EXPECT_EQ(seen[1].method, "PUT");
  EXPECT_EQ(seen[1].Header("Content-Length"), "0");
}

TEST_F(HttpClientTest, HeadGetsHeadersOnlyAndLeavesTheConnectionUsable) {
  auto client = MakeClient();
  Result<HttpResponse> head = client->Perform(MakeRequest("HEAD", origin_.url() + "/h"));
  ASSERT_OK(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->Header("Content-Length"), "11");
  EXPECT_EQ(head->body, "");
  // A POST and a GET after the HEAD are themselves, with their bodies.
  Result<HttpResponse> post = client->Perform(MakeRequest("POST", origin_.url() + "/p", "xyz"));
  ASSERT_OK(post);
  EXPECT_EQ(post->body, "xyz");
  Result<HttpResponse> get = client->Perform(MakeRequest("GET", origin_.url() + "/bytes/5"));
  ASSERT_OK(get);
  EXPECT_EQ(get->body, "bbbbb");
  std::vector<Origin::Request> seen = origin_.requests();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].method, "HEAD");
  EXPECT_EQ(seen[1].method, "POST");
  EXPECT_EQ(seen[2].method, "GET");
  EXPECT_EQ(origin_.connections(), 1);
}

TEST_F(HttpClientTest, SendsNoExpectNoAcceptEncodingAndNoContentTypeOfItsOwn) {
  auto client = MakeClient();
  const std::string big(2u << 20, 'x');  // beyond libcurl's threshold for Expect: 100-continue
  ASSERT_OK(client->Perform(MakeRequest("PUT", origin_.url() + "/big", big, {{"X-Empty", ""}})));
  ASSERT_OK(client->Perform(
      MakeRequest("POST", origin_.url() + "/typed", "{}", {{"Content-Type", "application/json"}})));
  std::vector<Origin::Request> seen = origin_.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].body.size(), big.size());
  EXPECT_EQ(seen[0].Header("Expect"), std::nullopt);
  EXPECT_EQ(seen[0].Header("Accept-Encoding"), std::nullopt);
  EXPECT_EQ(seen[0].Header("Content-Type"), std::nullopt);
  EXPECT_EQ(seen[0].Header("X-Empty"), "");  // an empty value is sent, not dropped
  EXPECT_EQ(seen[1].Header("Content-Type"), "application/json");
}

TEST_F(HttpClientTest, SequentialRequestsReuseOneConnection) {
  auto client = MakeClient();
  for (int i = 0; i < 5; ++i) {
    Result<HttpResponse> r = client->Perform(MakeRequest("GET", origin_.url() + "/bytes/3"));
    ASSERT_OK(r);
  }
  EXPECT_EQ(origin_.requests().size(), 5u);
  EXPECT_EQ(origin_.connections(), 1);
}

TEST_F(HttpClientTest, PoolBoundsConnectionsAndRequestsInFlight) {
  HttpOptions options;
  options.max_connections = 2;
  auto client = MakeClient(options);
  std::vector<std::thread> threads;
  std::vector<Status> results(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      Result<HttpResponse> r = client->Perform(MakeRequest("GET", origin_.url() + "/hold"));
      results[i] =
          r.ok() ? (r->body == "held" ? Status::OK() : Status::Corruption(r->body)) : r.status();
    });
  }
  // Two requests get connections and are held; the other two wait for one. A third in flight
  // would be the pool letting a request past its bound.
  ASSERT_TRUE(origin_.WaitForInFlight(2, std::chrono::seconds(30)));
  EXPECT_FALSE(origin_.WaitForInFlight(3, std::chrono::milliseconds(300)));
  origin_.Release();
  for (std::thread& t : threads) t.join();
  for (const Status& s : results) EXPECT_OK(s);
  EXPECT_EQ(origin_.requests().size(), 4u);
  EXPECT_EQ(origin_.max_in_flight(), 2);
  EXPECT_LE(origin_.connections(), 2);
  EXPECT_LE(origin_.max_open(), 2);
}

TEST_F(HttpClientTest, OnlyTheFinalResponsesHeadersAreKept) {
  auto client = MakeClient();
  Result<HttpResponse> r = client->Perform(MakeRequest("GET", origin_.url() + "/interim"));
  ASSERT_OK(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "ok");
  EXPECT_EQ(r->Header("X-Final"), "yes");
  EXPECT_EQ(r->Header("Link"), "");
}

TEST_F(HttpClientTest, RedirectsAndErrorStatusesAreResponsesNotFollowed) {
  auto client = MakeClient();
  Result<HttpResponse> moved = client->Perform(MakeRequest("GET", origin_.url() + "/redirect"));
  ASSERT_OK(moved);
  EXPECT_EQ(moved->status, 302);
  EXPECT_EQ(moved->Header("location"), "/elsewhere");
  EXPECT_EQ(moved->body, "moved");
  Result<HttpResponse> missing =
      client->Perform(MakeRequest("POST", origin_.url() + "/status/404", "why"));
  ASSERT_OK(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(missing->body, "why");
  EXPECT_EQ(origin_.requests().size(), 2u);  // /elsewhere never asked for
}

TEST(HttpResponseTest, HeaderLookupIgnoresCase) {
  HttpResponse response;
  response.headers = {{"ETag", "W/\"1\""}, {"x-ms-continuation-NextRowKey", "r"}};
  EXPECT_EQ(response.Header("etag"), "W/\"1\"");
  EXPECT_EQ(response.Header("ETAG"), "W/\"1\"");
  EXPECT_EQ(response.Header("X-MS-Continuation-NextRowKey"), "r");
  EXPECT_EQ(response.Header("x-ms-continuation-NextPartitionKey"), "");
}

TEST_F(HttpClientTest, InvalidRequestIsRefusedBeforeSending) {
  auto client = MakeClient();
  Result<HttpResponse> r = client->Perform(
      MakeRequest("GET", origin_.url() + "/x", "", {{"X-Injected", "a\r\nX-Other: b"}}));
  EXPECT_THAT(r, StatusIs(Status::Code::kInvalidArgument));
  r = client->Perform(MakeRequest("GET /y HTTP/1.1\r\n", origin_.url() + "/x"));
  EXPECT_THAT(r, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_TRUE(origin_.requests().empty());
}

TEST(HttpClientOptionsTest, OutOfRangeOptionsAreInvalidArgument) {
  HttpOptions zero_connect;
  zero_connect.connect_timeout = std::chrono::milliseconds(0);
  EXPECT_THAT(HttpClient::Create(zero_connect), StatusIs(Status::Code::kInvalidArgument));
  HttpOptions zero_request;
  zero_request.request_timeout = std::chrono::milliseconds(0);
  EXPECT_THAT(HttpClient::Create(zero_request), StatusIs(Status::Code::kInvalidArgument));
  HttpOptions zero_pool;
  zero_pool.max_connections = 0;
  EXPECT_THAT(HttpClient::Create(zero_pool), StatusIs(Status::Code::kInvalidArgument));
  EXPECT_OK(HttpClient::Create(HttpOptions()));
}

TEST(HttpClientOptionsTest, UnreadableCaFileIsInvalidArgumentNamingIt) {
  TempDir dir;
  HttpOptions missing;
  missing.ca_file = dir.Sub("missing.pem");
  Result<std::unique_ptr<HttpClient>> client = HttpClient::Create(missing);
  EXPECT_THAT(client, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_THAT(std::string(client.status().message()), HasSubstr(missing.ca_file));
  HttpOptions directory;
  directory.ca_file = dir.path();
  client = HttpClient::Create(directory);
  EXPECT_THAT(client, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_THAT(std::string(client.status().message()), HasSubstr(dir.path()));
}

// --- Failures ------------------------------------------------------------------------------------

TEST(HttpClientFailureTest, RefusedConnectionIsConnectAndNotSent) {
  auto client = MakeClient();
  const std::string url = "http://127.0.0.1:" + std::to_string(ClosedPort()) + "/t";
  Failed f = Fail(*client, MakeRequest("PUT", url, "body"));
  EXPECT_EQ(f.summary, "kConnect maybe_sent=false");
  EXPECT_THAT(f.message, HasSubstr("PUT " + url));
}

TEST(HttpClientFailureTest, MessageNeverHoldsTheSignature) {
  auto client = MakeClient();
  const std::string secret = "Qz9xW2vE7rT4yU1iO0pLkJhGfDsA1mN5bV8cX6zZ%2BaQ%3D";
  const std::string url = "http://127.0.0.1:" + std::to_string(ClosedPort()) +
                          "/Tables?sv=2019-02-02&sig=" + secret + "&se=2030-01-01";
  Failed f = Fail(*client, MakeRequest("GET", url));
  EXPECT_EQ(f.summary, "kConnect maybe_sent=false");
  EXPECT_THAT(f.message, HasSubstr("sig=<redacted>"));
  EXPECT_THAT(f.message, Not(HasSubstr(secret)));
  EXPECT_THAT(f.message, Not(HasSubstr("Qz9xW2")));
}

class HttpClientFaultTest : public HttpClientTest {
 protected:
  FaultProxy proxy_{"127.0.0.1", origin_.port()};
};

TEST_F(HttpClientFaultTest, DropBeforeForwardIsDroppedMaybeSent) {
  auto client = MakeClient();
  proxy_.AddRule({.fault = FaultProxy::Fault::kDropBeforeForward, .method = "POST"});
  Failed f = Fail(*client, MakeRequest("POST", proxy_.url() + "/Tables", "{}"));
  EXPECT_EQ(f.summary, "kDropped maybe_sent=true");
  EXPECT_THAT(f.message, HasSubstr("POST " + proxy_.url() + "/Tables"));
  EXPECT_EQ(proxy_.Received("POST", "/Tables"), 1);
  EXPECT_EQ(proxy_.Forwarded("POST", "/Tables"), 0);
  EXPECT_TRUE(origin_.requests().empty());
}

TEST_F(HttpClientFaultTest, DropAfterForwardIsDroppedAndAppliedOnce) {
  auto client = MakeClient();
  proxy_.AddRule({.fault = FaultProxy::Fault::kDropAfterForward, .method = "PUT"});
  Failed f = Fail(*client, MakeRequest("PUT", proxy_.url() + "/t(PartitionKey='p')", "{}"));
  EXPECT_EQ(f.summary, "kDropped maybe_sent=true");
  EXPECT_EQ(proxy_.Forwarded("PUT", "/t(PartitionKey='p')"), 1);
  EXPECT_EQ(origin_.requests().size(), 1u);
}

// libcurl by itself resends a request whose kept-alive connection closed before any response;
// the client must not, so that a write whose response was lost is not applied twice.
TEST_F(HttpClientFaultTest, LostResponseOnKeptAliveConnectionIsNotResent) {
  auto client = MakeClient();
  ASSERT_OK(client->Perform(MakeRequest("GET", proxy_.url() + "/warm")));
  proxy_.AddRule({.fault = FaultProxy::Fault::kDropAfterForward, .method = "MERGE"});
  Failed f = Fail(*client, MakeRequest("MERGE", proxy_.url() + "/t", "{\"a\":1}"));
  EXPECT_EQ(f.summary, "kDropped maybe_sent=true");
  EXPECT_THAT(f.message, HasSubstr("not sent again"));
  EXPECT_EQ(proxy_.Received("MERGE", "/t"), 1);
  EXPECT_EQ(proxy_.Forwarded("MERGE", "/t"), 1);
  EXPECT_EQ(origin_.requests().size(), 2u);
  // The broken connection is not reused: the next request opens another.
  ASSERT_OK(client->Perform(MakeRequest("GET", proxy_.url() + "/after")));
  EXPECT_EQ(proxy_.connections(), 2);
}

TEST_F(HttpClientFaultTest, ClosedKeptAliveConnectionIsNotResent) {
  auto client = MakeClient();
  ASSERT_OK(client->Perform(MakeRequest("GET", proxy_.url() + "/warm")));
  proxy_.AddRule({.fault = FaultProxy::Fault::kDropBeforeForward, .method = "DELETE"});
  Failed f = Fail(*client, MakeRequest("DELETE", proxy_.url() + "/t"));
  EXPECT_EQ(f.summary, "kDropped maybe_sent=true");
  EXPECT_EQ(proxy_.Received("DELETE", "/t"), 1);
  EXPECT_EQ(proxy_.Forwarded("DELETE", "/t"), 0);
  EXPECT_EQ(proxy_.connections(), 1);  // not even a connection opened to send it again
}

TEST_F(HttpClientFaultTest, StallTimesOutWithinRequestTimeout) {
  HttpOptions options;
  options.request_timeout = std::chrono::milliseconds(300);
  auto client = MakeClient(options);
  proxy_.AddRule({.fault = FaultProxy::Fault::kStall, .target_contains = "/slow"});
  const auto start = std::chrono::steady_clock::now();
  Failed f = Fail(*client, MakeRequest("GET", proxy_.url() + "/slow"));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(f.summary, "kTimeout maybe_sent=true");
  EXPECT_THAT(f.message, HasSubstr("timed out"));
  // Not cut short: libcurl times its transfers on its own clock, in whole milliseconds, so it
  // may end a transfer a fraction of a millisecond before ours reads 300 ms (a CI run saw
  // 299.9 ms); a few milliseconds of slack keep the bound about the timeout, not the clocks.
  EXPECT_GE(elapsed, std::chrono::milliseconds(300) - std::chrono::milliseconds(5));
  EXPECT_LT(elapsed, std::chrono::milliseconds(300) + std::chrono::seconds(5));
  EXPECT_EQ(proxy_.Forwarded("GET", "/slow"), 1);
}

TEST_F(HttpClientFaultTest, ShortBodyIsTruncated) {
  auto client = MakeClient();
  // The head announces the whole body by Content-Length, whichever way the origin sent it.
  for (std::string target : {"/bytes/1000", "/chunked/1000"}) {
    SCOPED_TRACE(target);
    proxy_.AddRule(
        {.fault = FaultProxy::Fault::kTruncate, .target_contains = target, .truncate_to = 100});
    Failed f = Fail(*client, MakeRequest("GET", proxy_.url() + target));
    EXPECT_EQ(f.summary, "kTruncated maybe_sent=true");
    EXPECT_THAT(f.message, HasSubstr("truncated"));
    // The rule is spent: the same request now succeeds whole.
    Result<HttpResponse> r = client->Perform(MakeRequest("GET", proxy_.url() + target));
    ASSERT_OK(r);
    EXPECT_EQ(r->body.size(), 1000u);
  }
}

TEST_F(HttpClientFaultTest, ThrottlingAnswersAreResponsesWithTheirHeaders) {
  auto client = MakeClient();
  proxy_.AddRule({.fault = FaultProxy::Fault::kRespond,
                  .method = "POST",
                  .times = 2,
                  .status = 503,
                  .headers = {{"Retry-After", "1"}},
                  .body = "{\"odata.error\":{\"code\":\"ServerBusy\"}}"});
  proxy_.AddRule({.fault = FaultProxy::Fault::kRespond,
                  .status = 429,
                  .headers = {{"x-ms-retry-after-ms", "250"}}});
  for (int i = 0; i < 2; ++i) {
    Result<HttpResponse> busy = client->Perform(MakeRequest("POST", proxy_.url() + "/t", "{}"));
    ASSERT_OK(busy);
    EXPECT_EQ(busy->status, 503);
    EXPECT_EQ(busy->Header("retry-after"), "1");
    EXPECT_THAT(busy->body, HasSubstr("ServerBusy"));
  }
  Result<HttpResponse> slow = client->Perform(MakeRequest("POST", proxy_.url() + "/t", "{}"));
  ASSERT_OK(slow);
  EXPECT_EQ(slow->status, 429);
  EXPECT_EQ(slow->Header("X-MS-Retry-After-Ms"), "250");
  Result<HttpResponse> through = client->Perform(MakeRequest("POST", proxy_.url() + "/t", "{}"));
  ASSERT_OK(through);
  EXPECT_EQ(through->status, 200);
  EXPECT_EQ(proxy_.Received("POST", "/t"), 4);
  EXPECT_EQ(proxy_.Forwarded("POST", "/t"), 1);
  EXPECT_EQ(proxy_.connections(), 1);  // answers without forwarding keep the connection
}

TEST_F(HttpClientFaultTest, ProxyForwardsLengthAndChunkedBodiesWhole) {
  auto client = MakeClient();
  for (std::string target : {"/bytes/70000", "/chunked/70000"}) {
    Result<HttpResponse> r = client->Perform(MakeRequest("GET", proxy_.url() + target));
    ASSERT_OK(r);
    EXPECT_EQ(r->body.size(), 70000u) << target;
  }
  EXPECT_EQ(proxy_.connections(), 1);
  EXPECT_EQ(origin_.connections(), 1);
}

TEST_F(HttpClientTest, BodyOverTheLimitIsTooLarge) {
  HttpOptions options;
  options.max_response_bytes = 1000;
  auto client = MakeClient(options);
  // Announced by Content-Length, and found while a chunked body arrives.
  for (std::string kind : {"/bytes/", "/chunked/"}) {
    SCOPED_TRACE(kind);
    Failed f = Fail(*client, MakeRequest("GET", origin_.url() + kind + "1001"));
    EXPECT_EQ(f.summary, "kTooLarge maybe_sent=true");
    EXPECT_THAT(f.message, HasSubstr("max_response_bytes (1000 bytes)"));
    Result<HttpResponse> r = client->Perform(MakeRequest("GET", origin_.url() + kind + "1000"));
    ASSERT_OK(r);
    EXPECT_EQ(r->body.size(), 1000u);
  }
  // A HEAD's Content-Length announces no body.
  options.max_response_bytes = 5;
  auto strict = MakeClient(options);
  EXPECT_OK(strict->Perform(MakeRequest("HEAD", origin_.url() + "/h")));
}

// --- HTTPS ---------------------------------------------------------------------------------------

// A self-signed certificate for 127.0.0.1 and its key, made by the openssl command.
class HttpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string command =
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2"
        " -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1"
        " -keyout " +
        key_ + " -out " + cert_ + " >" + dir_.Sub("openssl.log") + " 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    error_code ec;
    tls_.use_certificate_chain_file(cert_, ec);
    ASSERT_FALSE(ec) << ec.message();
    tls_.use_private_key_file(key_, ssl::context::pem, ec);
    ASSERT_FALSE(ec) << ec.message();
    origin_.emplace(&tls_);
  }
  void TearDown() override { origin_.reset(); }

  TempDir dir_;
  const std::string cert_ = dir_.Sub("cert.pem");
  const std::string key_ = dir_.Sub("key.pem");
  ssl::context tls_{ssl::context::tls_server};
  std::optional<Origin> origin_;
};

TEST_F(HttpsTest, CertificateTrustedThroughCaFileIsVerified) {
  HttpOptions options;
  options.ca_file = cert_;
  auto client = MakeClient(options);
  for (int i = 0; i < 2; ++i) {
    Result<HttpResponse> r =
        client->Perform(MakeRequest("PUT", origin_->url() + "/secure", std::string("s\0t", 3)));
    ASSERT_OK(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, std::string("s\0t", 3));
  }
  EXPECT_EQ(origin_->connections(), 1);
}

TEST_F(HttpsTest, CertificateNotInTheSystemStoreFailsTlsNotSent) {
  auto client = MakeClient();
  Failed f = Fail(*client, MakeRequest("PUT", origin_->url() + "/secure", "x"));
  EXPECT_EQ(f.summary, "kTls maybe_sent=false");
  EXPECT_THAT(f.message, HasSubstr("TLS"));
  EXPECT_TRUE(origin_->requests().empty());
}

}  // namespace
}  // namespace partkv::remote
