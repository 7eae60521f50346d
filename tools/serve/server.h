// partkv serve: the HTTP/1.1 server of the Table service endpoint (docs/serve.md).
//
// RunServe opens (or creates) one store per account (services.h), binds the address, prints one
// "listening" line with the URL and a connection string on stdout, and serves requests until
// SIGINT or SIGTERM. The HTTP layer is Boost.Beast over Asio: connections are read and written
// asynchronously, so a slow or idle client holds a socket and a few KiB but no thread; a
// complete request runs on one of `threads` threads. Every read and write has a deadline,
// every part of a request a size limit (ServeOptions), and the number of connections a cap.
//
// On SIGINT or SIGTERM the server stops accepting at once, closes connections that are idle or
// still sending a request, lets the requests being executed answer (up to `shutdown_grace_s`
// for their replies to be sent), closes the stores and returns OK: nothing acknowledged is lost.

#ifndef PARTKV_TOOLS_SERVE_SERVER_H_
#define PARTKV_TOOLS_SERVE_SERVER_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "partkv/query.h"
#include "partkv/status.h"

namespace partkv::serve {

struct ServeOptions {
  std::string store_dir;
  std::string host = "127.0.0.1";  // loopback unless told otherwise
  int port = 10002;                // the development storage's table port; 0 = any free port
  // (name, base64 key) pairs; empty = the development account devstoreaccount1.
  std::vector<std::pair<std::string, std::string>> accounts;
  std::string profile = "azure-table";     // for tables created through the endpoint
  bool throttling = false;                 // emulate the profile's per-partition budgets
  bool sync = false;                       // fsync every acknowledged write
  size_t memory_budget_bytes = 64u << 20;  // shared equally by the accounts' stores
  // Compactions at the lowest CPU priority (StoreOptions::low_priority_compactions): requests
  // first, the server owning its process.
  bool low_priority_compactions = true;
  // A query page's bounds (docs/serve.md "Limits and timeouts"). Azure's service ends a page after
  // about 5 s with a continuation, however few rows it examined; so does partkv, and it bounds a
  // page by time and bytes only, never by rows examined. page_bytes also bounds what one
  // response's entities hold in memory.
  std::chrono::milliseconds scan_time_budget{5000};
  size_t page_bytes = Query::kDefaultPageBytes;
  bool verbose = false;  // one line per request on stderr

  // The HTTP layer's limits (docs/serve.md "Limits and timeouts").
  int threads = 64;            // requests executed at once
  int max_connections = 1024;  // open connections; one more is answered 503 and closed
  int backlog = 1024;          // the listen queue (the kernel caps it at net.core.somaxconn)
  size_t max_header_bytes = 64u << 10;  // request line + header fields, as received
  size_t max_target_bytes = 32u << 10;  // the request target (path and query)
  int max_header_fields = 100;          // header fields of one request
  double header_timeout_s = 10;         // from a request's first byte to the end of its header
  double body_timeout_s = 60;           // to receive a request's body
  double idle_timeout_s = 60;           // a kept-alive connection waiting for its next request
  double write_timeout_s = 60;          // to send one response
  double shutdown_grace_s = 10;         // after SIGINT/SIGTERM, for replies in progress
};

// Serves until SIGINT/SIGTERM. Errors: a store cannot be opened, the address cannot be bound
// (in use: nothing else listens beside it, SO_REUSEPORT is never set), a bad account key.
Status RunServe(const ServeOptions& options);

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_SERVER_H_
