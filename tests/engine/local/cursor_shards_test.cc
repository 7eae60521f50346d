// ShardStream (engine/local/cursor_shards.h), through Table::QueryShards: shards share one iterator
// per physical partition and are read in runs sized from the page size and the shard count, so
// uneven shards (one holding most rows) need many runs, and shards in one physical partition
// take turns on its iterator. Every page size and both orders must give the exact merged stream.

#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "engine/local/cursor.h"
#include "partkv/keys.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/store_fixture.h"

namespace partkv {
namespace {

class ShardStreamTest : public testing::StoreFixture {
 protected:
  // Shards "d.1" .. "d.7" of random-suffix(date,7): shard 3 holds 400 rows, shard 5 none, the
  // others 3 each; RowKeys interleave across shards and repeat in two shards (ties go by
  // PartitionKey). Returns the expected (RowKey, PartitionKey) stream, ascending.
  std::vector<std::pair<std::string, std::string>> Fill() {
    std::vector<std::pair<std::string, std::string>> want;
    for (int shard = 1; shard <= 7; ++shard) {
      int rows = shard == 3 ? 400 : shard == 5 ? 0 : 3;
      Batch b;
      std::string pk = "d." + std::to_string(shard);
      for (int i = 0; i < rows; ++i) {
        char rk[16];
        std::snprintf(rk, sizeof rk, "r%05d", shard == 3 ? i * 2 : i * 150 + shard % 2);
        Entity e(pk, rk);
        e.Set("n", Value::Int32(i)).Set("shard", Value::Int32(shard));
        b.Insert(std::move(e));
        want.emplace_back(rk, pk);
        if (b.size() == 100) {
          EXPECT_OK(table_->Submit(b));
          b.Clear();
        }
      }
      if (!b.empty()) EXPECT_OK(table_->Submit(b));
    }
    std::sort(want.begin(), want.end());
    return want;
  }

  // Every page of the sharded read of "d", followed to the end.
  std::vector<std::pair<std::string, std::string>> ReadAll(Query q, size_t* pages = nullptr) {
    KeyStrategy s = *KeyStrategy::Parse("random-suffix(date,7)");
    std::vector<std::pair<std::string, std::string>> got;
    for (int guard = 0; guard < 10000; ++guard) {
      auto page = table_->QueryShards(s, "d", q);
      EXPECT_OK(page);
      if (!page.ok()) break;
      if (pages) ++*pages;
      for (const Entity& e : page->entities) got.emplace_back(e.row_key(), e.partition_key());
      if (!page->has_more()) break;
      q.continuation = page->continuation;
    }
    return got;
  }
};

TEST_F(ShardStreamTest, UnevenShardsMergeExactlyAtEveryPageSizeAndOrder) {
  table_options_.physical_partitions = 3;  // several shards share each partition's iterator
  Reopen();
  ASSERT_OK(store_->CreateTable("Uneven", table_options_));
  OpenTable("Uneven");
  auto want = Fill();
  ASSERT_EQ(want.size(), 400u + 5 * 3);
  for (bool descending : {false, true}) {
    auto expected = want;
    if (descending) std::reverse(expected.begin(), expected.end());
    for (uint32_t page_size : {1u, 2u, 7u, 50u, 1000u}) {
      Query q;
      q.page_size = page_size;
      q.descending = descending;
      EXPECT_EQ(ReadAll(q), expected) << "page size " << page_size << (descending ? " desc" : "");
    }
  }
}

TEST_F(ShardStreamTest, RowRangeFilterAndScanBudgetKeepTheStreamExact) {
  table_options_.physical_partitions = 2;
  Reopen();
  ASSERT_OK(store_->CreateTable("Uneven", table_options_));
  OpenTable("Uneven");
  auto all = Fill();
  // RowKeys in [r00100, r00600), rows of the odd shards only, at most 9 rows examined a page.
  std::vector<std::pair<std::string, std::string>> want;
  for (const auto& [rk, pk] : all) {
    int shard = pk.back() - '0';
    if (rk >= "r00100" && rk < "r00600" && shard % 2 == 1) want.emplace_back(rk, pk);
  }
  ASSERT_FALSE(want.empty());
  for (bool descending : {false, true}) {
    Query q;
    q.row_lower = Bound::Inclusive("r00100");
    q.row_upper = Bound::Exclusive("r00600");
    q.filter = "shard eq 1 or shard eq 3 or shard eq 5 or shard eq 7";
    q.page_size = 4;
    q.scan_budget = 9;
    q.descending = descending;
    auto expected = want;
    if (descending) std::reverse(expected.begin(), expected.end());
    size_t pages = 0;
    EXPECT_EQ(ReadAll(q, &pages), expected);
    EXPECT_GE(pages, expected.size() / 4);
  }
}

// CompareKeys (engine/compare_keys.h), the merges' comparison, orders as std::string_view::compare
// does: bytes as unsigned, a prefix first, for lengths on both sides of its 8-byte words.
TEST(CompareKeysTest, OrdersAsStringViewCompare) {
  std::mt19937_64 rng(42);
  const std::string alphabet(
      "\x00\x01"
      "aAz\x7f\x80\xfe\xff",
      9);
  auto sign = [](int c) { return (c > 0) - (c < 0); };
  for (int n = 0; n < 200000; ++n) {
    std::string a, b;
    const size_t la = rng() % 20, lb = rng() % 3 == 0 ? la : rng() % 20;
    for (size_t i = 0; i < la; ++i) a.push_back(alphabet[rng() % alphabet.size()]);
    // Often a copy of a with one byte changed or cut, so long common prefixes are frequent.
    if (rng() % 2 == 0) {
      b = a.substr(0, lb);
      if (!b.empty() && rng() % 2 == 0) b[rng() % b.size()] = alphabet[rng() % alphabet.size()];
    } else {
      for (size_t i = 0; i < lb; ++i) b.push_back(alphabet[rng() % alphabet.size()]);
    }
    ASSERT_EQ(sign(engine::CompareKeys(a, b)), sign(std::string_view(a).compare(b)))
        << ::testing::PrintToString(a) << " vs " << ::testing::PrintToString(b);
  }
}

}  // namespace
}  // namespace partkv
