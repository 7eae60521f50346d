// A fixture with a fresh store in its own temporary directory and string-returning helpers, so
// assertions read like the specification: EXPECT_EQ(Get("p", "r"), "{n=5}").

#ifndef PARTKV_TESTS_TESTING_STORE_FIXTURE_H_
#define PARTKV_TESTS_TESTING_STORE_FIXTURE_H_

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "partkv/partkv.h"
#include "tests/testing/temp_dir.h"

namespace partkv::testing {

class StoreFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    Reopen();
    ASSERT_TRUE(store_->CreateTable("Items", table_options_).ok());
    OpenTable();
  }

  void Reopen(const StoreOptions& options = {}) {
    table_.reset();
    store_.reset();
    auto s = Store::Open(dir_.Sub("store"), options);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_.emplace(std::move(*s));
  }
  void OpenTable(const std::string& name = "Items") {
    auto t = store_->OpenTable(name);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    table_.emplace(*t);
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
        ASSERT_TRUE(table_->Submit(b).ok());
        b.Clear();
      }
    }
    if (!b.empty()) ASSERT_TRUE(table_->Submit(b).ok());
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
  std::optional<Store> store_;
  std::optional<Table> table_;
};

}  // namespace partkv::testing

#endif  // PARTKV_TESTS_TESTING_STORE_FIXTURE_H_
