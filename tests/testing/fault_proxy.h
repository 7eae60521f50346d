// FaultProxy: an HTTP/1.1 proxy on the loopback interface that injects transport faults, for
// tests of HTTP clients.
//
// It listens on 127.0.0.1 at a port the system picks (port()) and forwards each request it
// reads to one upstream host:port, over an upstream connection of its own per client connection,
// and the response back; both sides are parsed as HTTP (Content-Length and chunked bodies) and
// kept alive. A test programs faults with rules, matched in the order added against each
// request's method and target; a rule applies to the next `times` requests it matches, then is
// gone. Requests no rule matches are forwarded faithfully.
//
// It counts, per (method, target), the requests it received and those it forwarded upstream, so
// a test can assert how many times a write reached the server. A count is updated before the
// client sees anything of the request's outcome.
//
// The proxy runs its own thread; every method is thread-safe. The destructor (or Stop) closes
// every connection, ends the stalls early, and joins the thread.

#ifndef PARTKV_TESTS_TESTING_FAULT_PROXY_H_
#define PARTKV_TESTS_TESTING_FAULT_PROXY_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace partkv::testing {

class FaultProxy {
 public:
  enum class Fault {
    kForward,            // forward faithfully (a rule that only counts or shields later rules)
    kDropBeforeForward,  // close the client connection without forwarding: nothing was written
    kDropAfterForward,   // forward, read the upstream's response, close the client connection
                         // without replying: the write happened, its response is lost
    kRespond,            // answer `status`, `headers`, `body` without forwarding
    kStall,              // forward, then hold the response for `stall`, or until Stop
    kTruncate,           // forward, then send the response head with its full Content-Length
                         // but only `truncate_to` bytes of its body, and close
  };

  struct Rule {
    Fault fault = Fault::kForward;
    std::string method;           // matches any method when empty
    std::string target_contains;  // matches a target holding this; any target when empty
    int times = 1;                // the number of requests it applies to

    // kRespond
    int status = 503;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    // kStall: how long the response is held (the default: until Stop)
    std::chrono::milliseconds stall = std::chrono::hours(24);
    // kTruncate: the bytes of the body sent (fewer than the body holds)
    size_t truncate_to = 0;
  };

  // Listens on 127.0.0.1 (port 0) and starts the proxy's thread. Aborts the test program if it
  // cannot listen.
  FaultProxy(std::string upstream_host, uint16_t upstream_port);
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  uint16_t port() const;
  // "http://127.0.0.1:PORT"
  std::string url() const;

  void AddRule(Rule rule);

  // Requests read from clients / written upstream with this method and exactly this target.
  int Received(std::string_view method, std::string_view target) const;
  int Forwarded(std::string_view method, std::string_view target) const;
  // Client connections accepted so far.
  int connections() const;

  // Closes the listener and every connection, ends stalls, joins the thread. Idempotent.
  void Stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace partkv::testing

#endif  // PARTKV_TESTS_TESTING_FAULT_PROXY_H_
