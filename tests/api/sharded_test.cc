// Key schemes on tables and sharded (scatter-gather) reads (docs/design.md "Key strategies and
// sharded reads").

#include <algorithm>
#include <set>

#include "partkv/keys.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/store_fixture.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

class ShardedTest : public testing::StoreFixture {
 protected:
  static Entity Order(const std::string& date, const std::string& order_id, int n) {
    Entity e;
    e.Set("date", Value::String(date))
        .Set("orderId", Value::String(order_id))
        .Set("n", Value::Int32(n));
    return e;
  }
  Table MakeTable(const std::string& name, const std::string& pk, const std::string& rk = "") {
    TableOptions o;
    o.partition_key_scheme = *KeyStrategy::Parse(pk);
    if (!rk.empty()) o.row_key_scheme = *KeyStrategy::Parse(rk);
    Status created = CreateTableAnywhere(name, o);
    EXPECT_OK(created);
    auto table = store_->OpenTable(name, schemes_);
    EXPECT_OK(table);
    return std::move(*table);
  }
  static std::string Id(int i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "ORD-%08d", i);
    return buf;
  }
};

TEST_F(ShardedTest, SchemeComputesMissingKeysAndKeepsSourceProperties) {
  Table t = MakeTable("Orders", "hash-suffix(date,orderId,200)", "concat(orderId)");
  auto w = t.Insert(Order("2014-07-09", "ORD-1", 1));
  ASSERT_OK(w);
  uint32_t suffix = Xxh3Suffix("ORD-1", 200);
  auto e = t.Get("2014-07-09." + std::to_string(suffix), "ORD-1");
  ASSERT_OK(e);
  EXPECT_EQ(e->Get("date")->as_string(), "2014-07-09");
  EXPECT_EQ(e->Get("orderId")->as_string(), "ORD-1");
  // Explicit keys win over the scheme.
  Entity explicit_keys = Order("2014-07-09", "ORD-2", 2);
  explicit_keys.set_partition_key("manual");
  explicit_keys.set_row_key("r");
  ASSERT_OK(t.Insert(explicit_keys));
  EXPECT_OK(t.Get("manual", "r"));
}

TEST_F(ShardedTest, PointReadByNaturalAttributes) {
  Table t = MakeTable("Orders", "hash-suffix(date,orderId,200,hash=codepoint-product)",
                      "concat(orderId)");
  ASSERT_OK(t.Insert(Order("2014-07-09", "ORD-7", 7)));
  Entity ask;
  ask.Set("date", Value::String("2014-07-09")).Set("orderId", Value::String("ORD-7"));
  auto e = t.GetByAttributes(ask);
  ASSERT_OK(e);
  EXPECT_EQ(e->Get("n")->as_int32(), 7);
  ask.Set("orderId", Value::String("ORD-8"));
  EXPECT_THAT(t.GetByAttributes(ask), StatusIs(Status::Code::kNotFound));
  Entity missing;
  missing.Set("orderId", Value::String("ORD-7"));
  EXPECT_THAT(t.GetByAttributes(missing), StatusIs(Status::Code::kInvalidArgument));

  Table r = MakeTable("Random", "random-suffix(date,50)", "concat(orderId)");
  ASSERT_OK(r.Insert(Order("2014-07-09", "ORD-9", 9)));
  ask.Set("orderId", Value::String("ORD-9"));
  auto found = r.GetByAttributes(ask);
  ASSERT_OK(found);
  EXPECT_EQ(found->Get("n")->as_int32(), 9);
}

TEST_F(ShardedTest, RandomSuffixCannotBeRecomputedForUpdates) {
  Table r = MakeTable("Random", "random-suffix(date,50)", "concat(orderId)");
  Status s = r.Replace(Order("2014-07-09", "ORD-1", 1), IfMatch::Any()).status();
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("random suffix"), std::string_view::npos) << s.ToString();
}

TEST_F(ShardedTest, SchemeSurvivesReopen) {
  PARTKV_REQUIRE(key_scheme_catalog);
  MakeTable("Orders", "hash-suffix(date,orderId,200)", "concat(orderId)");
  Reopen();
  auto tables = store_->ListTables();
  ASSERT_OK(tables);
  auto it =
      std::find_if(tables->begin(), tables->end(), [](auto& t) { return t.name == "Orders"; });
  ASSERT_NE(it, tables->end());
  EXPECT_EQ(it->partition_key_scheme, "hash-suffix(date,orderId,200,hash=xxh3)");
  EXPECT_EQ(it->row_key_scheme, KeyStrategy::Parse("concat(orderId)")->ToString());
  auto t = store_->OpenTable("Orders");
  ASSERT_OK(t->Insert(Order("2014-07-09", "ORD-3", 3)));
  EXPECT_OK(t->Get("2014-07-09." + std::to_string(Xxh3Suffix("ORD-3", 200)), "ORD-3"));
}

TEST_F(ShardedTest, ShardedReadOfOneDayAcross200SuffixesIsExactAndOrdered) {
  Table t = MakeTable("Orders", "random-suffix(date,200)", "concat(orderId)");
  std::vector<std::string> day;
  for (int i = 0; i < 3000; ++i) {
    ASSERT_OK(t.Insert(Order("2014-07-09", Id(i), i)));
    day.push_back(Id(i));
    ASSERT_OK(t.Insert(Order(i % 2 ? "2014-07-08" : "2014-07-10", Id(i), i)));
  }
  for (bool descending : Orders()) {
    Query q;
    q.page_size = 250;
    q.descending = descending;
    std::vector<std::string> got;
    std::set<std::string> shards;
    int pages = 0;
    int extra = 0;
    while (true) {
      auto page = t.QueryShards("2014-07-09", q);
      ASSERT_OK(page);
      ++pages;
      for (const auto& e : page->entities) {
        got.push_back(e.row_key());
        shards.insert(e.partition_key());
        EXPECT_EQ(e.Get("date")->as_string(), "2014-07-09");
      }
      if (!page->has_more()) break;
      q.continuation = page->continuation;
      // Writes between pages: other days, and new rows of this day that sort after everything.
      // Named per pass: these rows stay, each under a random suffix, so a name reused by the
      // second pass would collide with the first pass's row 1 time in 200.
      const std::string pass = descending ? "d" : "a";
      ASSERT_OK(t.Insert(Order("2014-07-10", "NEW-" + pass + std::to_string(pages), 0)));
      ASSERT_OK(t.Insert(Order("2014-07-09", "ZZZ-" + std::to_string(++extra), 0)));
    }
    EXPECT_GE(pages, 12);
    std::vector<std::string> expected = day;
    std::vector<std::string> survivors;
    for (const auto& k : got) {
      if (k.rfind("ZZZ-", 0) != 0) survivors.push_back(k);
    }
    if (descending) std::reverse(expected.begin(), expected.end());
    EXPECT_EQ(survivors, expected);
    EXPECT_TRUE(descending ? std::is_sorted(got.rbegin(), got.rend())
                           : std::is_sorted(got.begin(), got.end()));
    EXPECT_GT(shards.size(), 150u);  // the day really was spread over the suffixes
    // Remove the rows added while paging before the next direction.
    for (int i = 1; i <= extra; ++i) {
      Entity ask;
      ask.Set("date", Value::String("2014-07-09"))
          .Set("orderId", Value::String("ZZZ-" + std::to_string(i)));
      auto e = t.GetByAttributes(ask);
      ASSERT_OK(e);
      ASSERT_OK(t.Delete(e->partition_key(), e->row_key(), IfMatch::Any()));
    }
  }
}

// A key whose rows sit in a few hot shards: the merge takes most rows of a page from them, so a
// remote store's cursors grow their requests and, between pages, give back rows beyond what a
// kept read may hold (RemoteTable::kResumeRows) and fetch them again after the token's row.
TEST_F(ShardedTest, ShardedReadOfAKeyWithHotShardsIsExactPageAfterPage) {
  Table t = MakeTable("Hot", "hash-suffix(date,orderId,100)", "concat(orderId)");
  std::vector<std::pair<std::string, std::string>> all;  // (RowKey, PartitionKey)
  auto shard = [](int k) { return "2014-07-09." + std::to_string(k); };
  for (int k = 1; k <= 100; ++k) {
    const int rows = k <= 10 ? 1200 : 1;
    Batch batch;
    for (int i = 0; i < rows; ++i) {
      char rk[32];
      std::snprintf(rk, sizeof rk, k <= 10 ? "a-%05d-%03d" : "z-%03d", k <= 10 ? i : k, k);
      Entity e = Order("2014-07-09", rk, i);
      e.set_partition_key(shard(k));
      e.set_row_key(rk);
      all.emplace_back(rk, shard(k));
      batch.Insert(std::move(e));
      if (batch.ops().size() == Batch::kMaxOperations || i + 1 == rows) {
        auto done = t.Submit(batch);
        ASSERT_OK(done);
        batch.Clear();
      }
    }
  }
  std::sort(all.begin(), all.end());
  for (bool descending : Orders()) {
    Query q;
    q.page_size = 1000;
    q.descending = descending;
    std::vector<std::pair<std::string, std::string>> got;
    int pages = 0;
    do {
      auto page = t.QueryShards("2014-07-09", q);
      ASSERT_OK(page);
      ++pages;
      ASSERT_LE(page->entities.size(), 1000u);
      if (page->has_more()) ASSERT_EQ(page->entities.size(), 1000u) << "page " << pages;
      for (const auto& e : page->entities) got.emplace_back(e.row_key(), e.partition_key());
      q.continuation = page->continuation;
    } while (!q.continuation.empty());
    std::vector<std::pair<std::string, std::string>> expected = all;
    if (descending) std::reverse(expected.begin(), expected.end());
    ASSERT_EQ(got.size(), expected.size());
    EXPECT_TRUE(got == expected) << "descending " << descending;
    EXPECT_EQ(pages, 13);
  }
}

TEST_F(ShardedTest, ShardedReadAppliesRowRangeFilterAndRejectsOtherQueriesTokens) {
  Table t = MakeTable("Orders", "hash-suffix(date,orderId,20)", "concat(orderId)");
  for (int i = 0; i < 200; ++i) ASSERT_OK(t.Insert(Order("d1", Id(i), i)));
  Query q;
  q.row_lower = Bound::Inclusive(Id(50));
  q.row_upper = Bound::Exclusive(Id(150));
  q.filter = "n ge 100";
  q.page_size = 10;
  std::vector<std::string> got;
  std::string first_token;
  while (true) {
    auto page = t.QueryShards("d1", q);
    ASSERT_OK(page);
    for (const auto& e : page->entities) got.push_back(e.row_key());
    if (!page->has_more()) break;
    if (first_token.empty()) first_token = page->continuation;
    q.continuation = page->continuation;
  }
  ASSERT_EQ(got.size(), 50u);
  EXPECT_EQ(got.front(), Id(100));
  EXPECT_EQ(got.back(), Id(149));
  Query other = q;
  other.continuation = first_token;
  EXPECT_THAT(t.QueryShards("d2", other), StatusIs(Status::Code::kInvalidArgument));
  Query plain;
  plain.continuation = first_token;
  EXPECT_THAT(t.QueryEntities(plain), StatusIs(Status::Code::kInvalidArgument));
}

}  // namespace
}  // namespace partkv
