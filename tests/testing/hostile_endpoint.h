// HostileEndpoint: a Table endpoint on the loopback interface that answers as a broken or
// malicious server would, one behaviour per endpoint, for the tests of what the remote client
// checks (docs/remote.md "What the client checks").
//
// It speaks just enough of the Table service for a client to reach the behaviour: table lookups
// (`GET /Tables('T')`, `GET /Tables`), table creation and entity writes answer as a server that
// holds every table would; the behaviour is in the answers to queries and point reads, or, for
// kEcho403, in every answer. No request is authenticated. It listens on 127.0.0.1 at a port the
// system picks and serves each connection on a thread of its own; it never sends more than
// kMaxResponseBytes in one response, so a test's worst case is bounded too.
//
// Thread-safety: every method may be called from any thread. The destructor (or Stop) closes
// the listener and every connection and joins the threads.

#ifndef PARTKV_TESTS_TESTING_HOSTILE_ENDPOINT_H_
#define PARTKV_TESTS_TESTING_HOSTILE_ENDPOINT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace partkv::testing {

// Whether the tests' bounds on peak memory hold in this build: not under a sanitizer, whose shadow
// memory and quarantine are not the client's (PARTKV_SANITIZED,
// tests/engine/remote/CMakeLists.txt).
#ifdef PARTKV_SANITIZED
inline constexpr bool kMemoryBoundsHold = false;
#else
inline constexpr bool kMemoryBoundsHold = true;
#endif

class HostileEndpoint {
 public:
  enum class Behaviour {
    // Every query page carries the continuation (NextPartitionKey "1!8!c3R1Y2s-", NextRowKey
    // "1!4!cm93") whatever was sent, and no row.
    kSameContinuation,
    // The same, with the same row on every page (of the PartitionKey the query's filter asks
    // for, "p" when it asks for none).
    kSameContinuationSameRow,
    // Query pages alternate between two continuations, A after B and B after A, no row: a cycle
    // of two that never sends back the one it was just given.
    kContinuationCycle,
    // Query pages are 1 GiB bodies of chunked encoding, sent until the client stops reading.
    kEndlessChunkedBody,
    // Query pages are 1 GiB bodies without a length, ended by closing the connection.
    kCloseDelimitedBody,
    // Every request but a table lookup is answered 403 AuthenticationFailed with a message that
    // echoes the request line (its URL's SAS and signature included) and its Authorization
    // header, and with the request line in a header of its own.
    kEcho403,
    // A point read answers the entity (otherpk, otherrk); a query page holds a row of
    // PartitionKey "otherpk"; a table lookup answers about table "OtherTable".
    kOtherKeys,
    // Query pages and point reads with odata.metadata naming table "OtherTable".
    kOtherTableMetadata,
    // Every query and point read is 503 ServerBusy with "Retry-After: 99999999999999999999".
    kRetryAfterOverflow,
    // The same with "x-ms-retry-after-ms: 1e308" (429, as Cosmos DB answers).
    kRetryAfterMsOverflow,
    // Query pages are {"value":[[[1]]]}.
    kMalformedPage,
    // Query pages carry a continuation of 90,000 bytes, and no row.
    kLongContinuation,
  };

  static constexpr uint64_t kMaxResponseBytes = uint64_t{1} << 30;

  // Parses a behaviour's name as `--behaviour` takes it: "same-continuation",
  // "same-continuation-same-row", "continuation-cycle", "endless-chunked-body",
  // "close-delimited-body", "echo-403", "other-keys", "other-table-metadata",
  // "retry-after-overflow", "retry-after-ms-overflow", "malformed-page", "long-continuation".
  static std::optional<Behaviour> Parse(std::string_view name);

  // Listens on 127.0.0.1 (port 0) and starts accepting. Aborts the program if it cannot listen.
  explicit HostileEndpoint(Behaviour behaviour);
  ~HostileEndpoint();
  HostileEndpoint(const HostileEndpoint&) = delete;
  HostileEndpoint& operator=(const HostileEndpoint&) = delete;

  uint16_t port() const;
  // "http://127.0.0.1:PORT/devstoreaccount1"
  std::string url() const;
  // A connection string with the development account's key.
  std::string connection_string() const;
  // A SAS URL whose signature is `signature` (percent-encoded as given).
  std::string sas_url(std::string_view signature) const;

  // Requests answered so far, and body bytes sent.
  uint64_t requests() const;
  uint64_t bytes_sent() const;

  // Closes the listener and every connection, joins the threads. Idempotent.
  void Stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace partkv::testing

#endif  // PARTKV_TESTS_TESTING_HOSTILE_ENDPOINT_H_
