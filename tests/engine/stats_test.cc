#include "engine/stats.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "gtest/gtest.h"

namespace partkv::engine {
namespace {

TEST(SpaceSaving, FindsTrueTop10OfZipfMillionOperations) {
  // Zipf(s = 1.1) over 100,000 PartitionKeys, 1,000,000 operations.
  constexpr int kKeys = 100000;
  std::vector<double> cdf(kKeys);
  double sum = 0;
  for (int i = 0; i < kKeys; ++i) cdf[i] = (sum += 1.0 / std::pow(i + 1, 1.1));
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0, sum);
  std::vector<int> permutation(kKeys);
  for (int i = 0; i < kKeys; ++i) permutation[i] = i;
  std::shuffle(permutation.begin(), permutation.end(), rng);  // popularity unrelated to the name

  SpaceSaving sketch(256);
  std::map<std::string, uint64_t> truth;
  for (int op = 0; op < 1000000; ++op) {
    int rank = static_cast<int>(std::lower_bound(cdf.begin(), cdf.end(), u(rng)) - cdf.begin());
    std::string key = "device-" + std::to_string(permutation[rank]);
    sketch.Add(key);
    ++truth[key];
  }
  std::vector<std::pair<uint64_t, std::string>> sorted;
  for (auto& [k, c] : truth) sorted.emplace_back(c, k);
  std::sort(sorted.rbegin(), sorted.rend());
  auto top = sketch.Top(10);
  ASSERT_EQ(top.size(), 10u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(top[i].partition_key, sorted[i].second) << "rank " << i;
    // The estimate brackets the truth: count - error <= true <= count.
    EXPECT_GE(top[i].operations, sorted[i].first);
    EXPECT_LE(top[i].operations - top[i].error, sorted[i].first);
  }
}

TEST(SpaceSaving, ExactWhileUnderCapacity) {
  SpaceSaving sketch(4);
  for (int i = 0; i < 5; ++i) sketch.Add("a");
  sketch.Add("b", 3);
  sketch.Add("c");
  auto top = sketch.Top(10);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].partition_key, "a");
  EXPECT_EQ(top[0].operations, 5u);
  EXPECT_EQ(top[0].error, 0u);
  EXPECT_EQ(top[1].partition_key, "b");
  EXPECT_EQ(top[2].operations, 1u);
}

TEST(SpaceSaving, NewKeyReplacesSmallestAndInheritsItsCount) {
  SpaceSaving sketch(2);
  sketch.Add("a", 5);
  sketch.Add("b", 2);
  sketch.Add("c");  // evicts b (2): c counts 3 with error 2
  auto top = sketch.Top(2);
  EXPECT_EQ(top[0].partition_key, "a");
  EXPECT_EQ(top[1].partition_key, "c");
  EXPECT_EQ(top[1].operations, 3u);
  EXPECT_EQ(top[1].error, 2u);
}

TEST(TableStatsCollector, UnionOfPhysicalPartitionsIsTheTableView) {
  TableStatsCollector stats(4);
  stats.RecordWrite(0, "hot", 10, 1000);
  stats.RecordWrite(1, "warm", 5, 500);
  stats.RecordRead(1, "warm", 2, 100);
  stats.RecordScan(3, 7, 70);
  stats.RecordThrottled(0);
  TableStats s = stats.Snapshot(10);
  EXPECT_EQ(s.total.writes, 15u);
  EXPECT_EQ(s.total.reads, 9u);
  EXPECT_EQ(s.total.bytes_written, 1500u);
  EXPECT_EQ(s.partitions[3].reads, 7u);
  EXPECT_EQ(s.partitions[0].throttled, 1u);
  ASSERT_EQ(s.hottest.size(), 2u);
  EXPECT_EQ(s.hottest[0].partition_key, "hot");
  EXPECT_EQ(s.hottest[1].operations, 7u);
}

}  // namespace
}  // namespace partkv::engine
