// EndpointServer: one Azure Table endpoint — `partkv serve` or Azurite — run as a child process for
// the tests of the library's remote backend, on a free loopback port over fresh storage, and
// stopped when the object is destroyed.
//
//   auto server = PartkvServe::Start(PARTKV_CLI_PATH);
//   ASSERT_OK(server);  // tests/testing/status_matchers.h
//   auto store = Store::Open((*server)->connection_string());
//
// Start returns once the server has printed the line saying it listens (no sleeping), or fails
// with IOError within kStartDeadline, the server's exit status and stderr in the message. The
// destructor sends SIGTERM to the server's process group, SIGKILL when it has not exited after
// kStopDeadline, and reaps it. The server runs in its own process group with
// PR_SET_PDEATHSIG=SIGKILL, so a test process that crashes takes its servers with it.
// REQUIRES: the thread that calls Start outlives the server (Linux sends the death signal when
// the thread that forked the child ends, not only the process); gtest's main thread does.
//
// The programs come from the build: PARTKV_CLI_PATH ($<TARGET_FILE:partkv_cli>) and
// PARTKV_AZURITE_DIR, where tests/engine/remote/install_azurite.sh installed the pinned Azurite. In
// tests/engine/remote/CMakeLists.txt, linking partkv_test_endpoints defines both, and a test that
// starts Azurite takes FIXTURES_REQUIRED azurite, the CTest fixture that installs it.
//
// Thread-safety: the accessors are const and may be called from any thread while the server
// lives; SharedEndpoint may be called from any thread.

#ifndef PARTKV_TESTS_TESTING_ENDPOINT_SERVER_H_
#define PARTKV_TESTS_TESTING_ENDPOINT_SERVER_H_

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "partkv/result.h"
#include "tests/testing/temp_dir.h"

namespace partkv::testing {

// The development storage account, which both servers serve by default; the key is the one the
// storage emulator published.
inline constexpr std::string_view kDevAccountName = "devstoreaccount1";
inline constexpr std::string_view kDevAccountKey =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

// Azurite takes a few seconds to load on a busy machine; a minute means something is wrong.
inline constexpr std::chrono::seconds kStartDeadline{60};
// How long a server gets to finish after SIGTERM before it is killed.
inline constexpr std::chrono::seconds kStopDeadline{10};

class EndpointServer {
 public:
  virtual ~EndpointServer();
  EndpointServer(const EndpointServer&) = delete;
  EndpointServer& operator=(const EndpointServer&) = delete;

  // "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=<kDevAccountKey>;
  // TableEndpoint=http://127.0.0.1:PORT/devstoreaccount1;" (https for Azurite over HTTPS).
  const std::string& connection_string() const { return connection_string_; }
  // "http://127.0.0.1:PORT/devstoreaccount1" (or https://…): the account's table endpoint.
  const std::string& endpoint_url() const { return endpoint_url_; }
  int port() const { return port_; }
  // The PEM file of the certificate authority that signed the server's certificate, for a client
  // to trust; "" when the server speaks plain HTTP.
  const std::string& ca_file() const { return ca_file_; }
  // The server's process id (also its process group's), until it is destroyed.
  pid_t pid() const;
  // What the server has written to stderr so far (the last 64 KiB).
  std::string stderr_output() const;

 protected:
  class Process;
  // `dir`, when not null, is the server's working directory (its store, its certificate); it is
  // removed after the process has been stopped.
  EndpointServer(std::unique_ptr<TempDir> dir, std::unique_ptr<Process> process, std::string scheme,
                 int port, std::string ca_file);

 private:
  std::unique_ptr<TempDir> dir_;  // before process_: the server stops before its files go
  std::unique_ptr<Process> process_;
  int port_;
  std::string ca_file_;
  std::string endpoint_url_;
  std::string connection_string_;
};

struct PartkvServeOptions {
  // The store to serve; empty = a new one in a TempDir removed with the server. A given store
  // outlives the server (to reopen it, or to keep it out of a process that is about to crash).
  std::string store_dir;
  // Further `partkv serve` options (docs/cli.md), after --store and --port; not --host or
  // --port.
  std::vector<std::string> extra_args;
};

// `partkv serve --store DIR --port 0`: the port is the one its listening line names.
class PartkvServe final : public EndpointServer {
 public:
  // `partkv_cli` is the path of the partkv binary.
  static Result<std::unique_ptr<PartkvServe>> Start(const std::string& partkv_cli,
                                                    const PartkvServeOptions& options = {});

  const std::string& store_dir() const { return store_dir_; }

 private:
  PartkvServe(std::unique_ptr<TempDir> dir, std::unique_ptr<Process> process, int port,
              std::string store_dir);

  std::string store_dir_;
};

struct AzuriteOptions {
  // HTTPS with a self-signed certificate for 127.0.0.1 made by `openssl` for this server;
  // ca_file() names it.
  bool https = false;
  // --loose: ignore the headers and parameters Azurite does not support instead of refusing
  // the request.
  bool loose = false;
};

// Azurite's table service (`node …/azurite/dist/src/table/main.js`), in memory, with
// --skipApiVersionCheck and --disableTelemetry, on 127.0.0.1.
class Azurite final : public EndpointServer {
 public:
  // `azurite_dir` holds node_modules/azurite (tests/engine/remote/install_azurite.sh); node comes
  // from PATH.
  static Result<std::unique_ptr<Azurite>> Start(const std::string& azurite_dir,
                                                const AzuriteOptions& options = {});

 private:
  Azurite(std::unique_ptr<TempDir> dir, std::unique_ptr<Process> process, bool https, int port,
          std::string ca_file);
};

enum class EndpointKind { kPartkvServe, kAzurite, kAzuriteHttps };

// "PartkvServe", "Azurite", "AzuriteHttps": fit for gtest parameter names.
std::string_view EndpointKindName(EndpointKind kind);

// Where the servers' programs are (see the top of this file).
struct ServerPrograms {
  std::string partkv_cli;
  std::string azurite_dir;
};

// Starts a server of `kind` with default options.
Result<std::unique_ptr<EndpointServer>> StartEndpoint(EndpointKind kind,
                                                      const ServerPrograms& programs);

// The test process's one server of `kind`, started on the first call, for suites whose tests
// share a server (each test then uses its own table names). Stopped by a gtest Environment when
// the tests have run. A server that failed to start is not tried again: every later call returns
// the same failure. The pointer stays valid until the Environment's TearDown. The call that
// starts a server must come from the main thread (InvalidArgument otherwise), the one thread
// sure to outlive it.
// REQUIRES: every call passes the same `programs`.
Result<EndpointServer*> SharedEndpoint(EndpointKind kind, const ServerPrograms& programs);

}  // namespace partkv::testing

#endif  // PARTKV_TESTS_TESTING_ENDPOINT_SERVER_H_
