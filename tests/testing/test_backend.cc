// The backend of the semantic tests' stores (store_fixture.h): PARTKV_TEST_BACKEND, and the
// test process's server for it. The servers' programs are named by PARTKV_CLI (the partkv
// binary) and PARTKV_AZURITE_DIR (tests/engine/remote/install_azurite.sh's directory), which
// tests/api/CMakeLists.txt sets for the remote runs.

#include <cstdlib>
#include <string>

#include "tests/testing/endpoint_server.h"
#include "tests/testing/store_fixture.h"

namespace partkv::testing {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

}  // namespace

std::string_view TestBackend() {
  static const std::string backend = [] {
    std::string b = Env("PARTKV_TEST_BACKEND");
    return b.empty() ? std::string("local") : b;
  }();
  return backend;
}

Result<RemoteEndpoint> TestEndpoint() {
  std::string_view backend = TestBackend();
  EndpointKind kind;
  if (backend == "serve") {
    kind = EndpointKind::kPartkvServe;
  } else if (backend == "azurite") {
    kind = EndpointKind::kAzurite;
  } else if (backend == "azurite-https") {
    kind = EndpointKind::kAzuriteHttps;
  } else {
    return Status::InvalidArgument("PARTKV_TEST_BACKEND='" + std::string(backend) +
                                   "' is none of local, serve, azurite, azurite-https");
  }
  ServerPrograms programs{Env("PARTKV_CLI"), Env("PARTKV_AZURITE_DIR")};
  PARTKV_ASSIGN_OR_RETURN(EndpointServer * server, SharedEndpoint(kind, programs));
  return RemoteEndpoint{server->connection_string(), server->ca_file()};
}

}  // namespace partkv::testing
