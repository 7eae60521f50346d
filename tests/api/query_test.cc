// Queries (docs/design.md "Queries"): order, paging, merging physical partitions, key pushdown, the
// scan budget, $select and continuation tokens.

#include "partkv/query.h"

#include <algorithm>
#include <set>

#include "tests/testing/status_matchers.h"
#include "tests/testing/store_fixture.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

class QueryTest : public testing::StoreFixture {
 protected:
  void Fill(const std::string& pk, int n, int start = 0) {
    InsertRows(start, n, [&pk](int i) { return Make(pk, Rk(i), i); });
  }

  // Every page of `q`, followed to the end: "pk/rk" of each entity, and the page sizes.
  struct Run {
    std::vector<std::string> keys;
    std::vector<size_t> page_sizes;
    std::vector<bool> had_token;
    uint64_t max_examined = 0;
  };
  Run All(Query q, Table* t = nullptr) {
    Table& table = t ? *t : *table_;
    Run run;
    for (int guard = 0; guard < 100000; ++guard) {
      auto page = table.QueryEntities(q);
      EXPECT_OK(page);
      if (!page.ok()) break;
      for (const auto& e : page->entities)
        run.keys.push_back(e.partition_key() + "/" + e.row_key());
      run.page_sizes.push_back(page->entities.size());
      run.had_token.push_back(page->has_more());
      run.max_examined = std::max(run.max_examined, page->examined);
      if (!page->has_more()) break;
      q.continuation = page->continuation;
    }
    return run;
  }
};

TEST_F(QueryTest, PagesOf2500Are1000_1000_500WithTokensOnFirstTwo) {
  Fill("p", 2500);
  Query q;
  q.partition_key = "p";
  Run run = All(q);
  EXPECT_EQ(run.page_sizes, (std::vector<size_t>{1000, 1000, 500}));
  EXPECT_EQ(run.had_token, (std::vector<bool>{true, true, false}));
  ASSERT_EQ(run.keys.size(), 2500u);
  for (int i = 0; i < 2500; ++i) ASSERT_EQ(run.keys[i], "p/" + Rk(i));
}

TEST_F(QueryTest, DescendingReturnsReverseOrder) {
  PARTKV_REQUIRE(descending_scans);
  Fill("p", 1200);
  Query q;
  q.partition_key = "p";
  q.descending = true;
  Run run = All(q);
  ASSERT_EQ(run.keys.size(), 1200u);
  for (int i = 0; i < 1200; ++i) ASSERT_EQ(run.keys[i], "p/" + Rk(1199 - i));
}

class MergeTest : public QueryTest {
 protected:
  void SetUp() override {
    table_options_.physical_partitions = 32;
    QueryTest::SetUp();
    for (int p = 0; p < 60; ++p) Fill("pk" + std::to_string(p), 37 + p % 5);
    for (int p = 0; p < 60; ++p) {
      for (int i = 0; i < 37 + p % 5; ++i)
        expected_.push_back("pk" + std::to_string(p) + "/" + Rk(i));
    }
    std::sort(expected_.begin(), expected_.end());  // (PartitionKey, RowKey) order
  }
  std::vector<std::string> expected_;
};

TEST_F(MergeTest, TableWideQueryIsGloballyOrderedAcrossPhysicalPartitions) {
  Query q;
  q.page_size = 333;
  EXPECT_EQ(All(q).keys, expected_);
  if (!store_->capabilities().descending_scans) return;
  q.descending = true;
  std::vector<std::string> reversed(expected_.rbegin(), expected_.rend());
  EXPECT_EQ(All(q).keys, reversed);
}

TEST_F(MergeTest, PartitionKeyRangeReturnsExactlyTheRange) {
  Query q;
  q.partition_lower = Bound::Inclusive("pk2");
  q.partition_upper = Bound::Exclusive("pk4");
  q.page_size = 100;
  std::vector<std::string> want;
  for (const auto& k : expected_) {
    std::string pk = k.substr(0, k.find('/'));
    if (pk >= "pk2" && pk < "pk4") want.push_back(k);
  }
  EXPECT_EQ(All(q).keys, want);
  if (!store_->capabilities().descending_scans) return;
  q.descending = true;
  std::reverse(want.begin(), want.end());
  EXPECT_EQ(All(q).keys, want);
}

TEST_F(MergeTest, RowRangeAppliesInEveryPartitionOfAWideQuery) {
  Query q;
  q.row_lower = Bound::Exclusive(Rk(10));
  q.row_upper = Bound::Inclusive(Rk(12));
  q.page_size = 7;
  std::vector<std::string> want;
  for (const auto& k : expected_) {
    std::string rk = k.substr(k.find('/') + 1);
    if (rk > Rk(10) && rk <= Rk(12)) want.push_back(k);
  }
  ASSERT_EQ(want.size(), 120u);
  EXPECT_EQ(All(q).keys, want);
  if (!store_->capabilities().descending_scans) return;
  q.descending = true;
  std::reverse(want.begin(), want.end());
  EXPECT_EQ(All(q).keys, want);
}

TEST_F(QueryTest, RowPrefixAndBoundsSelectRows) {
  for (std::string rk : {"a", "ab", "abc", "abd", "b", "ba"}) {
    ASSERT_OK(table_->Insert(Make("p", rk, 0)));
  }
  Query q;
  q.partition_key = "p";
  q.row_prefix = "ab";
  EXPECT_EQ(All(q).keys, (std::vector<std::string>{"p/ab", "p/abc", "p/abd"}));
  q.row_prefix.reset();
  q.row_lower = Bound::Exclusive("ab");
  q.row_upper = Bound::Exclusive("b");
  EXPECT_EQ(All(q).keys, (std::vector<std::string>{"p/abc", "p/abd"}));
}

TEST_F(QueryTest, KeyConditionsInFilterSeekInsteadOfScanning) {
  Fill("p", 3000);
  Fill("q", 3000);
  Query q;
  q.filter = "PartitionKey eq 'q' and RowKey ge '" + Rk(2990) + "'";
  Run run = All(q);
  EXPECT_EQ(run.keys.size(), 10u);
  EXPECT_EQ(run.keys.front(), "q/" + Rk(2990));
  // Ten matching rows cost about ten reads, not the 6,000 a scan would.
  EXPECT_LE(run.max_examined, 12u);
}

TEST_F(QueryTest, KeyBoundedQueryCostDoesNotGrowWithTable) {
  Fill("p", 100, 5000);
  Query q;
  q.partition_key = "p";
  q.row_lower = Bound::Inclusive(Rk(5000));
  q.row_upper = Bound::Exclusive(Rk(5100));
  q.page_size = 100;
  uint64_t small_cost = All(q).max_examined;
  for (int p = 0; p < 40; ++p) Fill("other" + std::to_string(p), 500);
  Fill("p", 5000, 0);
  Fill("p", 5000, 5100);
  Run run = All(q);
  EXPECT_EQ(run.keys.size(), 100u);
  EXPECT_EQ(run.max_examined, small_cost);
}

TEST_F(QueryTest, SelectiveFilterPagesAreBoundedByScanBudget) {
  PARTKV_REQUIRE(scan_budget);
  table_options_.physical_partitions = 16;
  Batch b;
  std::set<std::string> want;
  for (int i = 0; i < 100000; ++i) {
    std::string pk = "p" + std::to_string(i % 50);
    Entity e(pk, Rk(i));
    e.Set("n", Value::Int32(i)).Set("rare", Value::Boolean(i % 9973 == 0));
    if (i % 9973 == 0) want.insert(pk + "/" + Rk(i));
    // Batches are per PartitionKey: flush when the key changes.
    if (!b.empty() && b.ops()[0].entity.partition_key() != pk) {
      ASSERT_OK(table_->Submit(b));
      b.Clear();
    }
    b.Insert(std::move(e));
  }
  ASSERT_OK(table_->Submit(b));
  Query q;
  q.filter = "rare eq true";
  q.scan_budget = 5000;
  Run run = All(q);
  EXPECT_LE(run.max_examined, 5000u + 16u);  // budget, plus the cursors' first positioning
  EXPECT_GE(run.page_sizes.size(), 20u);
  size_t empty_with_token = 0;
  for (size_t i = 0; i < run.page_sizes.size(); ++i) {
    if (run.page_sizes[i] == 0 && run.had_token[i]) ++empty_with_token;
  }
  EXPECT_GT(empty_with_token, 0u);
  EXPECT_EQ(std::set<std::string>(run.keys.begin(), run.keys.end()), want);
  EXPECT_EQ(run.keys.size(), want.size());
  EXPECT_TRUE(std::is_sorted(run.keys.begin(), run.keys.end()));
}

TEST_F(QueryTest, SelectReturnsOnlyNamedProperties) {
  Entity e("p", "r");
  e.Set("a", Value::Int32(1)).Set("b", Value::String("x")).Set("c", Value::Boolean(true));
  ASSERT_OK(table_->Insert(e));
  Query q;
  q.partition_key = "p";
  q.select = {"c", "a", "missing"};
  auto page = table_->QueryEntities(q);
  ASSERT_OK(page);
  ASSERT_EQ(page->entities.size(), 1u);
  EXPECT_EQ(page->entities[0].DebugString(), "(p,r){a=1,c=true}");
  EXPECT_FALSE(page->entities[0].etag().empty());
  q.select = {"bad-name"};
  EXPECT_THAT(table_->QueryEntities(q), StatusIs(Status::Code::kInvalidArgument));
}

TEST_F(QueryTest, FilterSelectsAndBadFilterSaysWhere) {
  Fill("p", 50);
  Query q;
  q.filter = "n ge 10 and n lt 13";
  EXPECT_EQ(All(q).keys, (std::vector<std::string>{"p/" + Rk(10), "p/" + Rk(11), "p/" + Rk(12)}));
  q.filter = "n ge 10 and";
  Status s = table_->QueryEntities(q).status();
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("position"), std::string_view::npos) << s.ToString();
}

TEST_F(QueryTest, BadPageSizeRejected) {
  Query q;
  q.page_size = 0;
  EXPECT_THAT(table_->QueryEntities(q), StatusIs(Status::Code::kInvalidArgument));
  q.page_size = 1001;
  EXPECT_THAT(table_->QueryEntities(q), StatusIs(Status::Code::kInvalidArgument));
}

class TokenTest : public QueryTest {
 protected:
  std::string FirstToken(Query q) {
    auto page = table_->QueryEntities(q);
    EXPECT_OK(page);
    EXPECT_TRUE(page->has_more());
    return page->continuation;
  }
  Status WithToken(Query q, const std::string& token) {
    q.continuation = token;
    return table_->QueryEntities(q).status();
  }
};

TEST_F(TokenTest, TamperedAndTruncatedTokensRejected) {
  Fill("p", 30);
  Query q;
  q.partition_key = "p";
  q.page_size = 10;
  std::string token = FirstToken(q);
  EXPECT_OK(WithToken(q, token));
  for (size_t i = 0; i < token.size(); ++i) {
    std::string t = token;
    t[i] = t[i] == 'A' ? 'B' : 'A';
    Status s = WithToken(q, t);
    EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument)) << "flipped char " << i;
  }
  for (size_t n : {size_t{0} + 1, token.size() / 2, token.size() - 1}) {
    EXPECT_THAT(WithToken(q, token.substr(0, n)), StatusIs(Status::Code::kInvalidArgument)) << n;
  }
  Status s = WithToken(q, "not a token!");
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("continuation token"), std::string_view::npos);
}

TEST_F(TokenTest, TokenFromOtherQueryRejected) {
  Fill("p", 30);
  Query q;
  q.partition_key = "p";
  q.page_size = 10;
  std::string token = FirstToken(q);
  Query other = q;
  other.filter = "n gt 3";
  Status s = WithToken(other, token);
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("different query"), std::string_view::npos) << s.ToString();
  other = q;
  other.descending = true;
  EXPECT_THAT(WithToken(other, token), StatusIs(Status::Code::kInvalidArgument));
  other = q;
  other.select = {"n"};
  EXPECT_THAT(WithToken(other, token), StatusIs(Status::Code::kInvalidArgument));
  other = q;
  other.partition_key = "q";
  EXPECT_THAT(WithToken(other, token), StatusIs(Status::Code::kInvalidArgument));
  // A different page size is the same query: Azure lets $top change between pages.
  other = q;
  other.page_size = 5;
  EXPECT_OK(WithToken(other, token));
}

TEST_F(TokenTest, TokenFromOtherStoreOrTableRejected) {
  Fill("p", 30);
  Query q;
  q.partition_key = "p";
  q.page_size = 10;
  std::string token = FirstToken(q);
  ASSERT_OK(store_->CreateTable("Other"));
  auto other_table = store_->OpenTable("Other");
  q.continuation = token;
  EXPECT_THAT(other_table->QueryEntities(q), StatusIs(Status::Code::kInvalidArgument));

  auto other_store = Store::Open(dir_.Sub("second-store"));
  ASSERT_OK(other_store);
  ASSERT_OK(other_store->CreateTable("Items"));
  auto t = other_store->OpenTable("Items");
  Status s = t->QueryEntities(q).status();
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("another store"), std::string_view::npos) << s.ToString();
}

TEST_F(TokenTest, TokenSurvivesReopen) {
  Fill("p", 30);
  Query q;
  q.partition_key = "p";
  q.page_size = 10;
  q.continuation = FirstToken(q);
  Reopen();
  OpenTable();
  auto page = table_->QueryEntities(q);
  ASSERT_OK(page);
  ASSERT_EQ(page->entities.size(), 10u);
  EXPECT_EQ(page->entities[0].row_key(), Rk(10));
}

TEST_F(TokenTest, WritesBetweenPagesNeverRepeatOrSkipSurvivors) {
  table_options_.physical_partitions = 16;
  for (int p = 0; p < 20; ++p) Fill("k" + std::to_string(p), 50);
  std::set<std::string> survivors;
  for (int p = 0; p < 20; ++p) {
    for (int i = 0; i < 50; ++i) survivors.insert("k" + std::to_string(p) + "/" + Rk(i));
  }
  for (bool descending : Orders()) {
    Query q;
    q.page_size = 37;
    q.descending = descending;
    std::vector<std::string> seen;
    int round = 0;
    while (true) {
      auto page = table_->QueryEntities(q);
      ASSERT_OK(page);
      for (const auto& e : page->entities) seen.push_back(e.partition_key() + "/" + e.row_key());
      if (!page->has_more()) break;
      q.continuation = page->continuation;
      // Between pages: new rows everywhere, and deletions of rows not yet surviving the test.
      ++round;
      std::string pk = "k" + std::to_string(round % 20);
      ASSERT_OK(table_->InsertOrReplace(Make(pk, Rk(1000 + round), 0)));
      ASSERT_OK(table_->InsertOrReplace(Make("k" + std::to_string(round % 7), "000000x", 0)));
    }
    std::set<std::string> unique(seen.begin(), seen.end());
    EXPECT_EQ(unique.size(), seen.size()) << "an entity was returned twice";
    for (const auto& k : survivors) EXPECT_EQ(unique.count(k), 1u) << k << " was skipped";
  }
}

}  // namespace
}  // namespace partkv
