// A fixture with a fresh store and string-returning helpers, so assertions read like the
// specification: EXPECT_EQ(Get("p", "r"), "{n=5}").
//
// The store is a local one in the fixture's own temporary directory, or, when the environment
// names a backend (PARTKV_TEST_BACKEND, below), a remote store on a test server: the same test
// code then runs against `partkv serve` or Azurite (tests/api/CMakeLists: the semantic suite).
// A remote store is emptied (every table dropped) when a test starts; Reopen opens a new client
// of the same server, as reopening a directory does. A test that needs what only the local
// engine has says so with PARTKV_REQUIRE_LOCAL(why) or PARTKV_REQUIRE(capability), and is then
// skipped remotely with the reason in the output; a test where a server departs from Azure says
// so with PARTKV_KNOWN_DIVERGENCE(backend, why) (docs/remote.md lists them).

#ifndef PARTKV_TESTS_TESTING_STORE_FIXTURE_H_
#define PARTKV_TESTS_TESTING_STORE_FIXTURE_H_

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "partkv/partkv.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace partkv::testing {

// The backend the fixture's stores are on: PARTKV_TEST_BACKEND = "local" (or unset), "serve",
// "azurite" or "azurite-https".
std::string_view TestBackend();
// The connection string of the test process's server for TestBackend() (started on first use;
// tests/testing/endpoint_server.h), and the CA file a client of it must trust ("" for HTTP).
// Fails the calling test when the server cannot be started.
struct RemoteEndpoint {
  std::string connection_string;
  std::string ca_file;
};
Result<RemoteEndpoint> TestEndpoint();

// Skips the test unless the store is local: for tests of the local engine's own behaviour.
#define PARTKV_REQUIRE_LOCAL(why)                                           \
  do {                                                                      \
    if (::partkv::testing::TestBackend() != "local") GTEST_SKIP() << (why); \
  } while (0)
// Skips the test unless the store has StoreCapabilities::`capability`.
#define PARTKV_REQUIRE(capability)                                         \
  do {                                                                     \
    if (!store_->capabilities().capability) {                              \
      GTEST_SKIP() << "needs StoreCapabilities::" #capability ", which a " \
                   << store_->capabilities().backend << " store lacks";    \
    }                                                                      \
  } while (0)
// Skips the test on `backend` ("azurite", …), where the server departs from Azure as `why` says.
#define PARTKV_KNOWN_DIVERGENCE(backend, why)                               \
  do {                                                                      \
    if (::partkv::testing::TestBackend().starts_with(backend)) {            \
      GTEST_SKIP() << "known divergence of " << (backend) << ": " << (why); \
    }                                                                       \
  } while (0)

class StoreFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    Reopen();
    if (HasFatalFailure()) return;
    if (remote()) {
      // A clean slate on the shared server.
      auto tables = store_->ListTables();
      ASSERT_OK(tables);
      for (const TableInfo& t : *tables) {
        Status s = store_->DropTable(t.name);
        ASSERT_OK(s);
      }
    }
    ASSERT_OK(CreateTableAnywhere("Items", table_options_));
    OpenTable();
  }

  static bool remote() { return TestBackend() != "local"; }

  // The orders the store can scan in: ascending, and descending where it can.
  std::vector<bool> Orders() const {
    if (store_->capabilities().descending_scans) return {false, true};
    return {false};
  }

  void Reopen(const StoreOptions& options = {}) {
    table_.reset();
    store_.reset();
    std::string location = dir_.Sub("store");
    StoreOptions opened = options;
    if (remote()) {
      auto endpoint = TestEndpoint();
      ASSERT_OK(endpoint);
      location = endpoint->connection_string;
      opened.remote.ca_file = endpoint->ca_file;
    }
    auto s = Store::Open(location, opened);
    ASSERT_OK(s);
    store_.emplace(std::move(*s));
  }
  void OpenTable(const std::string& name = "Items") {
    auto t = store_->OpenTable(name, schemes_);
    ASSERT_OK(t);
    table_.emplace(*t);
  }
  // CreateTable with `options`; on a store without a key-scheme catalog the schemes are kept
  // for OpenTable instead (as an application of a remote store gives them at open).
  Status CreateTableAnywhere(const std::string& name, TableOptions options) {
    if (!store_->capabilities().physical_partitions) {
      options.physical_partitions = TableOptions().physical_partitions;
    }
    if (!store_->capabilities().key_scheme_catalog) {
      schemes_.partition_key_scheme = std::move(options.partition_key_scheme);
      schemes_.row_key_scheme = std::move(options.row_key_scheme);
      options.partition_key_scheme.reset();
      options.row_key_scheme.reset();
    }
    return store_->CreateTable(name, options);
  }

  static Entity Make(std::string pk, std::string rk, int n) {
    Entity e(std::move(pk), std::move(rk));
    e.Set("n", Value::Int32(n));
    return e;
  }

  // "%06d": row keys whose byte order is their numeric order.
  static std::string Rk(int i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%06d", i);
    return buf;
  }

  // Inserts make(i) for i in [start, start + n), 100 to a batch: the rows of one call share a
  // PartitionKey, as a batch's must.
  template <typename MakeRow>
  void InsertRows(int start, int n, MakeRow&& make) {
    Batch b;
    for (int i = start; i < start + n; ++i) {
      b.Insert(make(i));
      if (b.size() == 100) {
        ASSERT_OK(table_->Submit(b));
        b.Clear();
      }
    }
    if (!b.empty()) ASSERT_OK(table_->Submit(b));
  }

  // "NOT_FOUND", or the properties as {name=value,...}.
  std::string Get(const std::string& pk, const std::string& rk) {
    auto e = table_->Get(pk, rk);
    if (e.status().IsNotFound()) return "NOT_FOUND";
    if (!e.ok()) return e.status().ToString();
    std::string d = e->DebugString();
    return d.substr(d.find('{'));
  }
  std::string EtagOf(const std::string& pk, const std::string& rk) {
    auto e = table_->Get(pk, rk);
    return e.ok() ? e->etag() : "";
  }

  TempDir dir_;
  TableOptions table_options_;
  OpenTableOptions schemes_;  // for a store without a key-scheme catalog
  std::optional<Store> store_;
  std::optional<Table> table_;
};

}  // namespace partkv::testing

#endif  // PARTKV_TESTS_TESTING_STORE_FIXTURE_H_
