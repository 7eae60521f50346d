// partkv::Filter (partkv/filter.h), the public face of the $filter parser and evaluator: it
// accepts and refuses what a query accepts and refuses, and matches exactly the entities a query
// with the same filter returns. The grammar's rules themselves are tests/engine/filter_test.cc's.

#include <gmock/gmock.h>

#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "partkv/filter.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/store_fixture.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// "match", "no match" or "error: <message>".
std::string Eval(std::string_view text, const Entity& entity) {
  Result<Filter> filter = Filter::Parse(text);
  if (!filter.ok()) return "error: " + std::string(filter.status().message());
  return filter->Matches(entity) ? "match" : "no match";
}

Entity Person() {
  Entity e("pk1", "rk5");
  e.set_timestamp(DateTime::Parse("2020-01-01T00:00:00Z").value());
  e.Set("Name", Value::String("Alice"));
  e.Set("Age", Value::Int32(30));
  return e;
}

TEST(FilterApiTest, EmptyFilterMatchesEverything) {
  Filter none;
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(none.Matches(Entity()));
  EXPECT_EQ(none.Canonical(), "");
  EXPECT_TRUE(none.PropertyNames().empty());
  Result<Filter> blank = Filter::Parse("  \t ");
  ASSERT_OK(blank);
  EXPECT_TRUE(blank->empty());
  EXPECT_TRUE(blank->Matches(Person()));
}

TEST(FilterApiTest, MatchesWithAzureTableRules) {
  const Entity e = Person();
  EXPECT_EQ(Eval("Age gt 29 and Name eq 'Alice'", e), "match");
  EXPECT_EQ(Eval("Age gt 30", e), "no match");
  EXPECT_EQ(Eval("30 eq Age", e), "match");  // the literal may come first
  // A missing property, or a literal of another type, makes the comparison false.
  EXPECT_EQ(Eval("Missing eq 1", e), "no match");
  EXPECT_EQ(Eval("not (Missing eq 1)", e), "match");
  EXPECT_EQ(Eval("Age eq 30L", e), "no match");
  // The keys and the Timestamp are read from the entity's own fields.
  EXPECT_EQ(Eval("PartitionKey eq 'pk1' and RowKey ge 'rk'", e), "match");
  EXPECT_EQ(Eval("Timestamp lt datetime'2021-01-01T00:00:00Z'", e), "match");
}

TEST(FilterApiTest, ParseErrorsAreInvalidArgumentWithTheirPosition) {
  Result<Filter> bad = Filter::Parse("Age eqq 3");
  ASSERT_THAT(bad, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("filter: at position 4: "));
  EXPECT_THAT(Filter::Parse("Age eq null"), StatusIs(Status::Code::kInvalidArgument));
  EXPECT_THAT(Filter::Parse("'a' eq 'b'"), StatusIs(Status::Code::kInvalidArgument));

  std::string at_limit = "A eq 0";
  for (int i = 1; i < Filter::kMaxComparisons; ++i) at_limit += " or A eq " + std::to_string(i);
  EXPECT_OK(Filter::Parse(at_limit));
  EXPECT_THAT(Filter::Parse(at_limit + " or A eq 99"), StatusIs(Status::Code::kInvalidArgument));

  auto nested = [](int depth) {
    return std::string(depth, '(') + "A eq 1" + std::string(depth, ')');
  };
  EXPECT_OK(Filter::Parse(nested(Filter::kMaxNesting - 1)));
  EXPECT_THAT(Filter::Parse(nested(Filter::kMaxNesting + 1)),
              StatusIs(Status::Code::kInvalidArgument));
}

TEST(FilterApiTest, CanonicalTextParsesBackToTheSameFilter) {
  Result<Filter> f = Filter::Parse("Age  gt 30 and not(PartitionKey eq 'a')");
  ASSERT_OK(f);
  EXPECT_EQ(f->Canonical(), "((Age gt 30) and (not (PartitionKey eq 'a')))");
  Result<Filter> again = Filter::Parse(f->Canonical());
  ASSERT_OK(again);
  EXPECT_EQ(again->Canonical(), f->Canonical());
  EXPECT_THAT(f->PropertyNames(), ElementsAre("Age", "PartitionKey"));
}

TEST(FilterApiTest, CopiesEvaluateAlikeFromManyThreads) {
  Result<Filter> parsed = Filter::Parse("Age ge 18");
  ASSERT_OK(parsed);
  const Filter adults = *parsed;  // a copy shares the parsed tree
  Filter moved = std::move(*parsed);
  EXPECT_EQ(moved.Canonical(), adults.Canonical());
  constexpr int kThreads = 4;
  std::latch start(kThreads);
  std::vector<int> matched(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const Filter& f = t % 2 == 0 ? adults : moved;
      start.arrive_and_wait();
      for (int age = 0; age < 100; ++age) {
        Entity e("p", "r");
        e.Set("Age", Value::Int32(age));
        matched[t] += f.Matches(e);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int m : matched) EXPECT_EQ(m, 82);
}

using FilterApiQueryTest = testing::StoreFixture;

TEST_F(FilterApiQueryTest, MatchesExactlyWhatAQueryWithTheSameFilterReturns) {
  for (int i = 0; i < 60; ++i) {
    Entity e("p" + std::to_string(i % 3), Rk(i));
    e.Set("n", Value::Int32(i));
    if (i % 4 != 0) e.Set("tag", Value::String(i % 2 == 0 ? "even" : "odd"));
    ASSERT_OK(table_->Insert(e));
  }
  for (const char* text : {"n lt 20 or tag eq 'odd'", "PartitionKey eq 'p1' and not (n ge 30)",
                           "tag ne 'even'", "RowKey gt '000050'", "n eq 7L"}) {
    Result<Filter> filter = Filter::Parse(text);
    ASSERT_OK(filter) << text;
    Query everything;
    Result<Page> all = table_->QueryEntities(everything);
    ASSERT_OK(all);
    ASSERT_EQ(all->entities.size(), 60u);
    std::vector<std::string> matched;
    for (const Entity& e : all->entities) {
      if (filter->Matches(e)) matched.push_back(e.partition_key() + "/" + e.row_key());
    }
    Query query;
    query.filter = text;
    Result<Page> page = table_->QueryEntities(query);
    ASSERT_OK(page) << text;
    std::vector<std::string> returned;
    for (const Entity& e : page->entities) {
      returned.push_back(e.partition_key() + "/" + e.row_key());
    }
    EXPECT_EQ(matched, returned) << text;
  }
}

}  // namespace
}  // namespace partkv
