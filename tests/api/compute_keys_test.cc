// A table's key schemes through the public API: TableInfo's parsed schemes and
// Table::ComputeKeys, the keys a write will use (docs/keys.md).

#include <gmock/gmock.h>

#include <string>

#include "partkv/keys.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/store_fixture.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;
using ::testing::HasSubstr;

class ComputeKeysTest : public testing::StoreFixture {
 protected:
  Table MakeTable(const std::string& name, const std::string& pk, const std::string& rk = "") {
    TableOptions o;
    if (!pk.empty()) o.partition_key_scheme = *KeyStrategy::Parse(pk);
    if (!rk.empty()) o.row_key_scheme = *KeyStrategy::Parse(rk);
    Status created = CreateTableAnywhere(name, o);
    EXPECT_OK(created);
    auto table = store_->OpenTable(name, schemes_);
    EXPECT_OK(table);
    return std::move(*table);
  }
  static Entity Order(const std::string& date, const std::string& id) {
    Entity e;
    e.Set("date", Value::String(date)).Set("orderId", Value::String(id));
    return e;
  }
  // "text|text" of a TableInfo's parsed schemes, "-" for none.
  static std::string Schemes(const TableInfo& info) {
    auto text = [](const std::optional<KeyStrategy>& s) { return s ? s->ToString() : "-"; };
    return text(info.partition_key_strategy) + "|" + text(info.row_key_strategy);
  }
};

TEST_F(ComputeKeysTest, TableInfoCarriesTheParsedSchemesBesideTheirText) {
  PARTKV_REQUIRE(key_scheme_catalog);
  const std::string expected = "hash-suffix(date,orderId,8,hash=xxh3)|concat(orderId,sep=-)";
  {
    Table orders = MakeTable("Orders", "hash-suffix(date,orderId,8)", "concat(orderId)");
    EXPECT_EQ(Schemes(orders.info()), expected);
    EXPECT_EQ(orders.info().partition_key_strategy->ToString(), orders.info().partition_key_scheme);
    EXPECT_EQ(Schemes(table_->info()), "-|-");
  }  // a Table keeps the store open

  Reopen();
  auto tables = store_->ListTables();
  ASSERT_OK(tables);
  ASSERT_EQ(tables->size(), 2u);
  EXPECT_EQ((*tables)[0].name, "Items");
  EXPECT_EQ(Schemes((*tables)[0]), "-|-");
  EXPECT_EQ((*tables)[1].name, "Orders");
  EXPECT_EQ(Schemes((*tables)[1]), expected);
  EXPECT_EQ(Schemes(store_->OpenTable("Orders", schemes_)->info()), expected);
}

TEST_F(ComputeKeysTest, MissingKeysAreComputedAndGivenKeysKept) {
  Table t = MakeTable("Orders", "hash-suffix(date,orderId,8)", "concat(orderId)");
  const Entity order = Order("2014-07-09", "ORD-1");
  auto keyed = t.ComputeKeys(order, OpType::kInsert);
  ASSERT_OK(keyed);
  EXPECT_EQ(keyed->partition_key(), *t.info().partition_key_strategy->Compute(order));
  EXPECT_EQ(keyed->row_key(), "ORD-1");
  EXPECT_EQ(keyed->Get("date")->as_string(), "2014-07-09");  // the properties stay

  Entity given = order;
  given.set_partition_key("chosen");
  auto kept = t.ComputeKeys(given, OpType::kReplace);
  ASSERT_OK(kept);
  EXPECT_EQ(kept->partition_key(), "chosen");
  EXPECT_EQ(kept->row_key(), "ORD-1");

  // A write of the computed entity stores it under exactly those keys.
  ASSERT_OK(t.Insert(*keyed));
  EXPECT_OK(t.Get(keyed->partition_key(), keyed->row_key()));
}

TEST_F(ComputeKeysTest, RandomSuffixIsDrawnOnceAndKeptByTheWrite) {
  Table t = MakeTable("Events", "random-suffix(date,50)", "concat(orderId)");
  auto keyed = t.ComputeKeys(Order("2014-07-09", "E-1"), OpType::kInsertOrReplace);
  ASSERT_OK(keyed);
  EXPECT_EQ(keyed->partition_key().rfind("2014-07-09.", 0), 0u) << keyed->partition_key();
  ASSERT_OK(t.InsertOrReplace(*keyed));
  auto stored = t.Get(keyed->partition_key(), "E-1");
  ASSERT_OK(stored);
}

TEST_F(ComputeKeysTest, WhatCannotBeComputedIsInvalidArgumentNamingIt) {
  Table t = MakeTable("Orders", "hash-suffix(date,orderId,8)", "concat(orderId)");
  Entity no_date;
  no_date.Set("orderId", Value::String("ORD-1"));
  auto missing = t.ComputeKeys(no_date, OpType::kInsert);
  ASSERT_THAT(missing, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("PartitionKey"));
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("'date'"));

  // A random suffix addresses no existing entity: replace, merge and delete must name the key.
  Table events = MakeTable("Events", "random-suffix(date,50)");
  Entity e = Order("2014-07-09", "E-1");
  e.set_row_key("r");
  for (OpType type : {OpType::kReplace, OpType::kMerge, OpType::kDelete}) {
    auto refused = events.ComputeKeys(e, type);
    ASSERT_THAT(refused, StatusIs(Status::Code::kInvalidArgument)) << OpTypeName(type);
    EXPECT_THAT(std::string(refused.status().message()), HasSubstr("random suffix"));
  }
}

TEST_F(ComputeKeysTest, TableWithoutSchemesReturnsTheEntityUnchanged) {
  Entity keyless;
  keyless.Set("n", Value::Int32(1));
  auto same = table_->ComputeKeys(keyless, OpType::kInsert);
  ASSERT_OK(same);
  EXPECT_EQ(same->DebugString(), keyless.DebugString());
  Entity keyed("p", "r");
  keyed.Set("n", Value::Int32(1));
  EXPECT_EQ(table_->ComputeKeys(keyed, OpType::kMerge)->DebugString(), keyed.DebugString());
}

}  // namespace
}  // namespace partkv
