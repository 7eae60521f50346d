// The bad-input catalogue's fixture and helpers (docs/errors.md). A Case is one row: the input
// is fed by `feed`, which returns the Status the library gave; ErrorsTest holds a store with
// known entities and the snapshot they must still match afterwards.

#ifndef PARTKV_TESTS_ERRORS_ERRORS_FIXTURE_H_
#define PARTKV_TESTS_ERRORS_ERRORS_FIXTURE_H_

#include <sys/types.h>

#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/front/front_access.h"
#include "engine/key_codec.h"
#include "engine/local/catalog.h"
#include "engine/local/shared_table.h"
#include "engine/local/table_handle.h"
#include "gtest/gtest.h"
#include "partkv/partkv.h"
#include "rocksdb/db.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace partkv::errors {

using Code = Status::Code;
class ErrorsTest;

struct Case {
  const char* id;    // the row of docs/errors.md
  const char* name;  // the test name
  Code code;
  const char* fragment;  // a part of Status::ToString() that names what was wrong
  std::function<Status(ErrorsTest&)> feed;
};

void PrintTo(const Case& c, std::ostream* os);
// Every row, in the order of docs/errors.md (catalogue.cc).
const std::vector<Case>& AllCases();

std::string Repeat(std::string_view s, size_t n);
// Runs partkv_store_helper with `args` and returns its stdout lines. With `pid_out`, returns once
// `wait_for_lines` lines have come and leaves the helper running, its stdin open in *stdin_out.
std::vector<std::string> RunHelper(std::vector<std::string> args, pid_t* pid_out = nullptr,
                                   int* stdin_out = nullptr, size_t wait_for_lines = 0);
bool Has(const std::vector<std::string>& lines, const std::string& line);
// The rest of the first line starting with `prefix`, or "".
std::string Find(const std::vector<std::string>& lines, const std::string& prefix);
// "<CodeName> <message>" back into a Status.
Status StatusFromLine(const std::string& line);

class ErrorsTest : public ::testing::TestWithParam<Case> {
 public:
  std::string store_path() const { return dir_.Sub("store"); }
  std::string Sub(const std::string& name) const { return dir_.Sub(name); }
  Store& store() { return *store_; }
  Table& table() { return *table_; }

  void Close() {
    table_.reset();
    store_.reset();
  }
  Status Open() {
    Close();
    auto s = Store::Open(store_path());
    if (!s.ok()) return s.status();
    store_.emplace(std::move(*s));
    auto t = store_->OpenTable("Items");
    if (!t.ok()) return t.status();
    table_.emplace(*t);
    return Status::OK();
  }

  // A genuine continuation token of a query of the whole table, two entities a page.
  std::string Token(const std::string& filter = "") {
    Query q;
    q.page_size = 2;
    q.filter = filter;
    auto page = table_->QueryEntities(q);
    EXPECT_THAT(page, ::partkv::testing::IsOkAndHolds(::testing::Property(&Page::has_more, true)));
    return page.ok() ? page->continuation : "";
  }
  Status QueryWithToken(const std::string& token, const std::string& filter = "") {
    Query q;
    q.page_size = 2;
    q.filter = filter;
    q.continuation = token;
    return table_->QueryEntities(q).status();
  }

  // Rewrites a meta key with raw RocksDB (the store must be closed).
  void RawMetaPut(const std::string& key, const std::string& value) {
    WithRawDb([&](rocksdb::DB* db, const std::map<std::string, rocksdb::ColumnFamilyHandle*>& cfs) {
      ASSERT_TRUE(
          db->Put(rocksdb::WriteOptions(), cfs.at(engine::kMetaColumnFamily), key, value).ok());
    });
  }
  void WithRawDb(
      const std::function<void(rocksdb::DB*,
                               const std::map<std::string, rocksdb::ColumnFamilyHandle*>&)>& f) {
    std::vector<std::string> names;
    ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), store_path(), &names).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> descs;
    for (const auto& n : names) descs.emplace_back(n, rocksdb::ColumnFamilyOptions());
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(rocksdb::DBOptions(), store_path(), descs, &handles, &raw).ok());
    std::map<std::string, rocksdb::ColumnFamilyHandle*> by_name;
    for (size_t i = 0; i < names.size(); ++i) by_name[names[i]] = handles[i];
    f(raw, by_name);
    for (auto* h : handles) ASSERT_TRUE(raw->DestroyColumnFamilyHandle(h).ok());
    delete raw;
  }
  // The column family and stored key of (pk, rk) in table Items.
  std::pair<std::string, std::string> Locate(const std::string& pk, const std::string& rk) {
    auto& data = FrontAccess::Of(*table_).data();
    const auto& part = data.partitions()[data.PartitionIndexOf(pk)];
    return {part.cf->GetName(), part.prefix + engine::EntityKey(pk, rk)};
  }

  std::string skip_reason_;

 protected:
  void SetUp() override {
    auto s = Store::Open(store_path());
    ASSERT_OK(s);
    ASSERT_OK(s->CreateTable("Items"));
    store_.emplace(std::move(*s));
    table_.emplace(*store_->OpenTable("Items"));
    WriteOptions sync{.sync = true};
    Entity a("alpha", "1");
    a.Set("Name", Value::String("Zürich"))
        .Set("Blob", Value::Binary(std::string("\0\xff", 2)))
        .Set("Ok", Value::Boolean(true))
        .Set("When", Value::DateTime(DateTime{636693696000000000}))
        .Set("Ratio", Value::Double(2.5))
        .Set("Id", Value::Guid(*Guid::Parse("c9da6455-213d-42c9-9a79-3e9149a57833")))
        .Set("Small", Value::Int32(-7))
        .Set("Big", Value::Int64(9007199254740993LL));
    ASSERT_OK(table_->Insert(a, sync));
    Entity b("alpha", "2");
    b.Set("Name", Value::String("second"));
    ASSERT_OK(table_->Insert(b, sync));
    Batch batch;
    for (int i = 0; i < 5; ++i) {
      Entity e("beta", "row" + std::to_string(i));
      e.Set("i", Value::Int32(i));
      batch.Insert(std::move(e));
    }
    ASSERT_OK(table_->Submit(batch, sync));
    snapshot_ = Snapshot();
    ASSERT_NE(snapshot_.find("(beta,row4)"), std::string::npos) << snapshot_;
  }

  // Every entity with its ETag, in key order, and the tables.
  std::string Snapshot() {
    std::string out;
    auto tables = store_->ListTables();
    if (!tables.ok()) return tables.status().ToString();
    for (const auto& t : *tables) out += "table " + t.name + "\n";
    Query q;
    for (;;) {
      auto page = table_->QueryEntities(q);
      if (!page.ok()) return page.status().ToString();
      for (const auto& e : page->entities) out += e.DebugString() + " " + e.etag() + "\n";
      if (!page->has_more()) break;
      q.continuation = page->continuation;
    }
    return out;
  }

  testing::TempDir dir_;
  std::optional<Store> store_;
  std::optional<Table> table_;
  std::string snapshot_;
};

}  // namespace partkv::errors

#endif  // PARTKV_TESTS_ERRORS_ERRORS_FIXTURE_H_
