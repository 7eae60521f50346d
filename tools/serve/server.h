// partkv serve: the HTTP/1.1 server of the Table service endpoint (docs/serve.md).
//
// RunServe opens (or creates) the store, binds the address, prints one "listening" line with the
// URL and a connection string on stdout, and serves requests with a pool of worker threads
// (cpp-httplib) until SIGINT or SIGTERM. Then it stops accepting connections, lets every request
// in progress finish and answer, closes the store and returns OK: nothing acknowledged is lost.

#ifndef PARTKV_TOOLS_SERVE_SERVER_H_
#define PARTKV_TOOLS_SERVE_SERVER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "partkv/status.h"

namespace partkv::serve {

struct ServeOptions {
  std::string store_dir;
  std::string host = "127.0.0.1";  // loopback unless told otherwise
  int port = 10002;                // the development storage's table port; 0 = any free port
  // (name, base64 key) pairs; empty = the development account devstoreaccount1.
  std::vector<std::pair<std::string, std::string>> accounts;
  std::string profile = "azure-table";  // for tables created through the endpoint
  bool throttling = false;              // emulate the profile's per-partition budgets
  bool sync = false;                    // fsync every acknowledged write
  size_t memory_budget_bytes = 64u << 20;
  int threads = 64;  // worker threads = concurrent connections served
  uint64_t scan_budget = 100000;
  bool verbose = false;  // one line per request on stderr
};

// Serves until SIGINT/SIGTERM. Errors: the store cannot be opened, the address cannot be bound,
// a bad account key.
Status RunServe(const ServeOptions& options);

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_SERVER_H_
