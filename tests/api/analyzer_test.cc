// The key-strategy analyzer: counts against the sample, routing against the XXH3 hash ranges,
// the skew statistics and the cloud write-time arithmetic against hand computations, and the
// code-point-product suffix's skew on realistic order ids. docs/analyzer.md is the specification.

#include "partkv/analyzer.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "engine/local/catalog.h"
#include "engine/local/shared_table.h"
#include "tests/testing/status_matchers.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

KeyStrategy Strategy(std::string_view text) { return KeyStrategy::Parse(text).value(); }

Analyzer Make(std::string_view strategy, AnalyzerOptions options = {}) {
  return Analyzer::Create(Strategy(strategy), options).value();
}

// "ORD-00012345": the realistic order ids of the acceptance test.
std::string OrderId(uint32_t n) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "ORD-%08u", n);
  return buf;
}

Entity Order(std::string date, std::string order_id) {
  Entity e("", order_id);
  e.Set("date", Value::String(std::move(date))).Set("OrderId", Value::String(order_id));
  return e;
}

// The physical partition of `key` computed independently of the engine: XXH3_64bits of the
// PartitionKey's bytes, then floor(h * n / 2^64) — the even split of docs/design.md.
uint32_t PhysicalIndex(std::string_view key, uint32_t n) {
  uint64_t h = XXH3_64bits(key.data(), key.size());
  return static_cast<uint32_t>((static_cast<unsigned __int128>(h) * n) >> 64);
}

// A key that lands in physical partition `index` of `n`, found by trying "k0", "k1", ...
std::string KeyInPartition(uint32_t index, uint32_t n) {
  for (int i = 0;; ++i) {
    std::string key = "k" + std::to_string(i);
    if (PhysicalIndex(key, n) == index) return key;
  }
}

// (key->entities) for the hottest list, in its order.
std::string Hottest(const AnalysisReport& r) {
  std::string out;
  for (const PartitionCount& p : r.hottest_logical) {
    out += "(" + p.key + "->" + std::to_string(p.entities) + ")";
  }
  return out;
}

const CloudEstimate& Cloud(const AnalysisReport& r, std::string_view profile) {
  for (const CloudEstimate& c : r.cloud) {
    if (c.profile == profile) return c;
  }
  ADD_FAILURE() << "no cloud estimate for " << profile;
  static const CloudEstimate kNone;
  return kNone;
}

// ---------------------------------------------------------------------------------------------
// Counts and routing.

TEST(AnalyzerTest, CountsEqualTheSample) {
  Analyzer a = Make("concat(group)", {.physical_partitions = 8, .top = 100});
  std::map<std::string, uint64_t> expected;
  for (int i = 0; i < 1000; ++i) {
    std::string group = "g" + std::to_string(i * i % 37);
    ++expected[group];
    Entity e("", "r" + std::to_string(i));
    e.Set("group", Value::String(group));
    a.Add(e);
  }
  AnalysisReport r = a.Finish();
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(r.logical.total, 1000u);
  EXPECT_EQ(r.logical.partitions, expected.size());
  EXPECT_EQ(r.physical.total, 1000u);
  uint64_t physical_sum = 0;
  for (uint64_t c : r.physical_counts) physical_sum += c;
  EXPECT_EQ(physical_sum, 1000u);

  std::map<std::string, uint64_t> reported;
  for (const PartitionCount& p : r.hottest_logical) reported[p.key] = p.entities;
  EXPECT_EQ(reported, expected);
}

TEST(AnalyzerTest, PhysicalCountsFollowTheXxh3HashRanges) {
  for (uint32_t n : {1u, 7u, 16u, 1000u}) {
    Analyzer a = Make("concat(PartitionKey)", {.physical_partitions = n});
    std::vector<uint64_t> expected(n);
    for (int i = 0; i < 5000; ++i) {
      std::string pk = "customer-" + std::to_string(i % 1500);
      ++expected[PhysicalIndex(pk, n)];
      a.Add(Entity(pk, std::to_string(i)));
    }
    AnalysisReport r = a.Finish();
    EXPECT_EQ(r.physical_counts, expected) << "n = " << n;
    EXPECT_EQ(r.physical.partitions, n);
    EXPECT_EQ(r.physical_partitions, n);
  }
}

TEST(AnalyzerTest, RoutingHashIsTheEnginesAndRangesAreTheCatalogs) {
  // The independent routing above is only a check if it is the engine's: same hash, same ranges.
  for (std::string_view key : {"", "a", "2018-08-09.17", "customer-42"}) {
    EXPECT_EQ(engine::HashPartitionKey(key), XXH3_64bits(key.data(), key.size())) << key;
    for (uint32_t n : {1u, 7u, 16u}) {
      std::vector<uint64_t> bounds = engine::EvenLowerBounds(n);
      uint32_t i = PhysicalIndex(key, n);
      uint64_t h = XXH3_64bits(key.data(), key.size());
      EXPECT_GE(h, bounds[i]) << key;
      if (i + 1 < n) {
        EXPECT_LT(h, bounds[i + 1]) << key;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Skew statistics on hand-built samples.

TEST(AnalyzerTest, SkewStatsOfAHandBuiltSample) {
  // Logical partitions a:5 b:1 c:1 d:1 -> total 8, max 5, mean 2, population variance
  // (9 + 1 + 1 + 1) / 4 = 3, cv = sqrt(3) / 2, hottest share 5/8.
  // Physical (n = 4): a and b in partition 0, c in 1, d in 3 -> {6, 1, 0, 1}: mean 2,
  // variance (16 + 1 + 4 + 1) / 4 = 5.5, cv = sqrt(5.5) / 2, hottest share 6/8.
  const uint32_t n = 4;
  std::string k0a = KeyInPartition(0, n);
  std::string k0b;
  for (int i = 0; k0b.empty(); ++i) {
    std::string key = "m" + std::to_string(i);
    if (PhysicalIndex(key, n) == 0) k0b = key;
  }
  std::string k1 = KeyInPartition(1, n), k3 = KeyInPartition(3, n);
  Analyzer a = Make("concat(PartitionKey)", {.physical_partitions = n});
  for (int i = 0; i < 5; ++i) a.Add(Entity(k0a, std::to_string(i)));
  a.Add(Entity(k0b, "x"));
  a.Add(Entity(k1, "x"));
  a.Add(Entity(k3, "x"));
  AnalysisReport r = a.Finish();

  EXPECT_EQ(r.logical.partitions, 4u);
  EXPECT_EQ(r.logical.total, 8u);
  EXPECT_EQ(r.logical.max, 5u);
  EXPECT_DOUBLE_EQ(r.logical.mean, 2.0);
  EXPECT_DOUBLE_EQ(r.logical.cv, std::sqrt(3.0) / 2);
  EXPECT_DOUBLE_EQ(r.logical.hottest_share, 5.0 / 8);

  EXPECT_EQ(r.physical_counts, (std::vector<uint64_t>{6, 1, 0, 1}));
  EXPECT_EQ(r.physical.partitions, 4u);
  EXPECT_EQ(r.physical.max, 6u);
  EXPECT_DOUBLE_EQ(r.physical.mean, 2.0);
  EXPECT_DOUBLE_EQ(r.physical.cv, std::sqrt(5.5) / 2);
  EXPECT_DOUBLE_EQ(r.physical.hottest_share, 6.0 / 8);
}

TEST(AnalyzerTest, EvenSampleHasNoSkew) {
  Analyzer a = Make("concat(PartitionKey)");
  for (const char* pk : {"a", "b", "c", "d"}) {
    for (int i = 0; i < 3; ++i) a.Add(Entity(pk, std::to_string(i)));
  }
  AnalysisReport r = a.Finish();
  EXPECT_EQ(r.logical.partitions, 4u);
  EXPECT_DOUBLE_EQ(r.logical.cv, 0.0);
  EXPECT_DOUBLE_EQ(r.logical.hottest_share, 0.25);
  EXPECT_DOUBLE_EQ(Cloud(r, "azure-table").seconds_with_skew,
                   Cloud(r, "azure-table").seconds_if_spread_evenly);
}

TEST(AnalyzerTest, HottestListsFullestFirstThenByKey) {
  Analyzer a = Make("concat(PartitionKey)", {.top = 3});
  auto add = [&](const char* pk, int count) {
    for (int i = 0; i < count; ++i) a.Add(Entity(pk, std::to_string(i)));
  };
  add("b", 2);
  add("e", 1);
  add("c", 3);
  add("a", 2);
  add("d", 2);
  EXPECT_EQ(Hottest(a.Finish()), "(c->3)(a->2)(b->2)");
}

TEST(AnalyzerTest, EmptySampleReportsZeros) {
  AnalysisReport r = Make("concat(PartitionKey)").Finish();
  EXPECT_EQ(r.logical.partitions, 0u);
  EXPECT_EQ(r.logical.total, 0u);
  EXPECT_EQ(r.logical.cv, 0.0);
  EXPECT_EQ(r.physical.partitions, 16u);
  EXPECT_EQ(r.physical.hottest_share, 0.0);
  ASSERT_EQ(r.cloud.size(), 3u);
  for (const CloudEstimate& c : r.cloud) {
    EXPECT_EQ(c.seconds_with_skew, 0.0) << c.profile;
    EXPECT_EQ(c.seconds_if_spread_evenly, 0.0) << c.profile;
    EXPECT_EQ(c.bottleneck_partition, "") << c.profile;
  }
}

// ---------------------------------------------------------------------------------------------
// The acceptance: the code-point-product suffix on realistic order ids, reported as it is.

TEST(AnalyzerTest, CodepointProductSkewOnOrderIdsIsReportedAsItIs) {
  const uint32_t kIds = 100000;
  Analyzer product = Make("hash-suffix(date,OrderId,200,hash=codepoint-product)");
  Analyzer xxh3 = Make("hash-suffix(date,OrderId,200,hash=xxh3)");
  // Independently: the product of the (ASCII) code points mod 200, plus 1; and XXH3 mod 200 + 1.
  std::map<uint32_t, uint64_t> product_suffixes, xxh3_suffixes;
  for (uint32_t i = 0; i < kIds; ++i) {
    std::string id = OrderId(i);
    uint64_t p = 1;
    for (unsigned char c : id) p = p * c % 200;
    ++product_suffixes[static_cast<uint32_t>(p) + 1];
    ++xxh3_suffixes[static_cast<uint32_t>(XXH3_64bits(id.data(), id.size()) % 200) + 1];
    product.Add(Order("2018-08-09", id));
    xxh3.Add(Order("2018-08-09", id));
  }

  // Why: "ORD-" already holds 2^3 * 5 (R = 82 = 2*41, D = 68 = 2^2*17, '-' = 45 = 3^2*5), so the
  // product is a multiple of 40 and the suffix is one of 1, 41, 81, 121, 161. A '2' (50 = 2*5^2)
  // or a '7' (55 = 5*11) among the digits completes 200 = 2^3 * 5^2 and gives suffix 1: all ids
  // but the 8^5 = 32,768 whose five varying digits avoid 2 and 7, which split evenly over the
  // other four suffixes.
  std::map<uint32_t, uint64_t> closed_form = {
      {1, kIds - 32768}, {41, 8192}, {81, 8192}, {121, 8192}, {161, 8192}};
  ASSERT_EQ(product_suffixes, closed_form);

  AnalysisReport r = product.Finish();
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(r.read_fanout, 200u);
  EXPECT_EQ(r.logical.partitions, 5u);  // of the 200 the strategy promises
  EXPECT_EQ(r.logical.max, 67232u);
  EXPECT_DOUBLE_EQ(r.logical.hottest_share, 0.67232);
  EXPECT_EQ(Hottest(r),
            "(2018-08-09.1->67232)(2018-08-09.121->8192)(2018-08-09.161->8192)"
            "(2018-08-09.41->8192)(2018-08-09.81->8192)");
  // Azure: the busiest partition needs 67,232 / 2,000 = 33.6 s.
  EXPECT_EQ(Cloud(r, "azure-table").bottleneck_partition, "2018-08-09.1");
  EXPECT_DOUBLE_EQ(Cloud(r, "azure-table").seconds_with_skew, 67232.0 / 2000);
  EXPECT_DOUBLE_EQ(Cloud(r, "azure-table").seconds_if_spread_evenly, 100000.0 / (2000 * 5));

  AnalysisReport x = xxh3.Finish();
  uint64_t xxh3_max = 0;
  for (const auto& [suffix, count] : xxh3_suffixes) xxh3_max = std::max(xxh3_max, count);
  EXPECT_EQ(x.logical.partitions, xxh3_suffixes.size());
  EXPECT_EQ(x.logical.partitions, 200u);
  EXPECT_EQ(x.logical.max, xxh3_max);
  EXPECT_LT(x.logical.max, 1.5 * 100000 / 200);
  EXPECT_LT(x.logical.cv, 0.1);  // ~ sqrt(500) / 500 = 0.045 for a uniform hash
  EXPECT_DOUBLE_EQ(Cloud(x, "azure-table").seconds_with_skew, xxh3_max / 2000.0);
  // The same 100,000 writes take over 100x longer in Azure under the code-point product.
  EXPECT_GT(Cloud(r, "azure-table").seconds_with_skew,
            100 * Cloud(x, "azure-table").seconds_with_skew);
}

TEST(AnalyzerTest, DateAloneIsMoreSkewedThanHashSuffix) {
  Analyzer by_date = Make("concat(date)");
  Analyzer sharded = Make("hash-suffix(date,OrderId,200)");
  for (uint32_t i = 0; i < 20000; ++i) {
    Entity e = Order("2018-08-" + std::to_string(10 + i % 4), OrderId(i));
    by_date.Add(e);
    sharded.Add(e);
  }
  AnalysisReport d = by_date.Finish(), s = sharded.Finish();
  EXPECT_EQ(d.logical.partitions, 4u);
  EXPECT_EQ(s.logical.partitions, 800u);
  EXPECT_EQ(d.read_fanout, 1u);
  EXPECT_EQ(s.read_fanout, 200u);
  EXPECT_GT(d.logical.hottest_share, 100 * s.logical.hottest_share);
  // Four keys cannot fill 16 physical partitions; 800 can.
  EXPECT_GT(d.physical.cv, 1.0);
  EXPECT_LT(s.physical.cv, 0.2);
  EXPECT_GT(d.physical.hottest_share, s.physical.hottest_share);
  for (const char* profile : {"azure-table", "dynamodb", "cosmos"}) {
    EXPECT_GT(Cloud(d, profile).seconds_with_skew, Cloud(s, profile).seconds_with_skew) << profile;
  }
}

// ---------------------------------------------------------------------------------------------
// The cloud write-time model.

TEST(AnalyzerTest, WriteUnitsBySize) {
  EXPECT_EQ(DynamoDbWriteUnits(0), 1u);
  EXPECT_EQ(DynamoDbWriteUnits(1), 1u);
  EXPECT_EQ(DynamoDbWriteUnits(1024), 1u);
  EXPECT_EQ(DynamoDbWriteUnits(1025), 2u);
  EXPECT_EQ(DynamoDbWriteUnits(2048), 2u);
  EXPECT_EQ(DynamoDbWriteUnits(400 * 1024), 400u);

  // Microsoft's table rows exactly, linear between them, flat below 1 KB, proportional above.
  EXPECT_DOUBLE_EQ(CosmosWriteRequestUnits(0, 0), 4.95);
  EXPECT_DOUBLE_EQ(CosmosWriteRequestUnits(1024, 0), 4.95);
  EXPECT_DOUBLE_EQ(CosmosWriteRequestUnits(1536, 0), (4.95 + 6.29) / 2);
  EXPECT_DOUBLE_EQ(CosmosWriteRequestUnits(2048, 0), 6.29);
  EXPECT_DOUBLE_EQ(CosmosWriteRequestUnits(48 * 1024, 0), (11.23 + 22.67) / 2);
  EXPECT_DOUBLE_EQ(CosmosWriteRequestUnits(1024 * 1024, 0), 625.0);
  EXPECT_DOUBLE_EQ(CosmosWriteRequestUnits(2048 * 1024, 0), 1250.0);
  EXPECT_DOUBLE_EQ(CosmosWriteRequestUnits(4096 * 1024, 0), 2500.0);
  // Microsoft's worked example: a 1-KB document with 10 indexed terms, 5.0 + 0.2 x 10 (with the
  // table's 4.95 for the size part).
  EXPECT_DOUBLE_EQ(CosmosWriteRequestUnits(1024, 10), 4.95 + 2.0);
}

TEST(AnalyzerTest, CloudEstimateArithmeticOnASmallSample) {
  // Entity size by Azure's formula, with the computed PartitionKey "a" or "b" (not the entity's
  // own "ignored-own-key"), RowKey "r1", properties g = "a" and pad = L characters:
  //   4 + 2*(1 + 2) + (8 + 2*1 + 2*1 + 4) + (8 + 2*3 + 2*L + 4) = 44 + 2L.
  // Partition a: three of L = 491 (1,026 bytes, 2 WCU); partition b: one of L = 490 (1,024 bytes,
  // 1 WCU).
  auto entity = [](const char* group, size_t pad) {
    Entity e("ignored-own-key", "r1");
    e.Set("g", Value::String(group)).Set("pad", Value::String(std::string(pad, 'x')));
    return e;
  };
  Analyzer a = Make("concat(g)", {.physical_partitions = 1});
  for (int i = 0; i < 3; ++i) a.Add(entity("a", 491));
  a.Add(entity("b", 490));
  AnalysisReport r = a.Finish();
  EXPECT_EQ(r.hottest_logical.size(), 2u);
  EXPECT_EQ(r.hottest_logical[0].bytes, 3u * 1026);
  EXPECT_EQ(r.hottest_logical[1].bytes, 1024u);

  ASSERT_EQ(r.cloud.size(), 3u);
  EXPECT_EQ(r.cloud[0].profile, "azure-table");
  EXPECT_EQ(r.cloud[1].profile, "dynamodb");
  EXPECT_EQ(r.cloud[2].profile, "cosmos");

  const CloudEstimate& azure = r.cloud[0];
  EXPECT_EQ(azure.unit, "entities/s");
  EXPECT_EQ(azure.limit_per_partition, 2000.0);
  EXPECT_EQ(azure.partitions, 2u);
  EXPECT_EQ(azure.total_units, 4.0);
  EXPECT_EQ(azure.bottleneck_units, 3.0);
  EXPECT_EQ(azure.bottleneck_partition, "a");
  EXPECT_DOUBLE_EQ(azure.seconds_with_skew, 3.0 / 2000);
  EXPECT_DOUBLE_EQ(azure.seconds_if_spread_evenly, 4.0 / (2000 * 2));

  const CloudEstimate& dynamo = r.cloud[1];
  EXPECT_EQ(dynamo.unit, "WCU/s");
  EXPECT_EQ(dynamo.limit_per_partition, 1000.0);
  EXPECT_EQ(dynamo.partitions, 2u);
  EXPECT_EQ(dynamo.total_units, 7.0);
  EXPECT_EQ(dynamo.bottleneck_units, 6.0);
  EXPECT_EQ(dynamo.bottleneck_partition, "a");
  EXPECT_DOUBLE_EQ(dynamo.seconds_with_skew, 6.0 / 1000);
  EXPECT_DOUBLE_EQ(dynamo.seconds_if_spread_evenly, 7.0 / (1000 * 2));

  // Cosmos: 1,026 bytes -> 4.95 + 1.34 * (2/1024) RU, 1,024 bytes -> 4.95 RU, each plus
  // 0.2 RU x 2 properties; one physical partition holds everything.
  const CloudEstimate& cosmos = r.cloud[2];
  double ru_a = 4.95 + (6.29 - 4.95) * (2.0 / 1024) + 0.4;
  double ru_b = 4.95 + 0.4;
  EXPECT_EQ(cosmos.unit, "RU/s");
  EXPECT_EQ(cosmos.limit_per_partition, 10000.0);
  EXPECT_EQ(cosmos.partitions, 1u);
  EXPECT_DOUBLE_EQ(cosmos.total_units, 3 * ru_a + ru_b);
  EXPECT_EQ(cosmos.bottleneck_partition, "p0");
  EXPECT_DOUBLE_EQ(cosmos.seconds_with_skew, (3 * ru_a + ru_b) / 10000);
  EXPECT_DOUBLE_EQ(cosmos.seconds_if_spread_evenly, (3 * ru_a + ru_b) / 10000);
}

TEST(AnalyzerTest, CosmosBottleneckIsTheBusiestPhysicalPartition) {
  // Four physical partitions; 3 entities in partition 2, 1 in partition 0: the even spread would
  // be 4 entities' RU over 4 partitions, the skew 3 entities' RU in one.
  const uint32_t n = 4;
  Analyzer a = Make("concat(PartitionKey)", {.physical_partitions = n});
  for (int i = 0; i < 3; ++i) a.Add(Entity(KeyInPartition(2, n), std::to_string(i)));
  a.Add(Entity(KeyInPartition(0, n), "x"));
  AnalysisReport r = a.Finish();
  const CloudEstimate& cosmos = Cloud(r, "cosmos");
  EXPECT_EQ(cosmos.bottleneck_partition, "p2");
  EXPECT_EQ(cosmos.partitions, 4u);
  EXPECT_DOUBLE_EQ(cosmos.seconds_with_skew, 3 * cosmos.seconds_if_spread_evenly);
}

TEST(AnalyzerTest, BottleneckTiesGoToTheSmallestKeyOrIndex) {
  const uint32_t n = 4;
  std::string in3 = KeyInPartition(3, n), in1 = KeyInPartition(1, n);
  Analyzer a = Make("concat(PartitionKey)", {.physical_partitions = n});
  // Added in descending order, so insertion order cannot pick the winner.
  for (const std::string& pk : {std::string("zz"), std::string("yy")}) {
    for (int i = 0; i < 2; ++i) a.Add(Entity(pk, std::to_string(i)));
  }
  AnalysisReport r = a.Finish();
  EXPECT_EQ(Cloud(r, "azure-table").bottleneck_partition, "yy");
  EXPECT_EQ(Cloud(r, "dynamodb").bottleneck_partition, "yy");

  Analyzer b = Make("concat(PartitionKey)", {.physical_partitions = n});
  b.Add(Entity(in3, "1"));
  b.Add(Entity(in1, "1"));
  EXPECT_EQ(Cloud(b.Finish(), "cosmos").bottleneck_partition, "p1");
}

// ---------------------------------------------------------------------------------------------
// Errors, determinism, options, JSON.

TEST(AnalyzerTest, EntitiesMissingTheFieldAreCountedAsErrors) {
  Analyzer a = Make("hash-suffix(date,OrderId,200)");
  a.Add(Order("2018-08-09", "ORD-1"));
  Entity no_order("", "r");
  no_order.Set("date", Value::String("2018-08-09"));
  a.Add(no_order);
  a.Add(Order("2018-08-09", "ORD-2"));
  Entity no_date("", "r");
  no_date.Set("OrderId", Value::String("ORD-3"));
  a.Add(no_date);
  AnalysisReport r = a.Finish();
  EXPECT_EQ(r.errors, 2u);
  EXPECT_NE(r.first_error.find("entity has no property 'OrderId'"), std::string::npos)
      << r.first_error;
  EXPECT_EQ(r.logical.total, 2u);
  EXPECT_EQ(r.physical.total, 2u);
}

TEST(AnalyzerTest, RandomSuffixIsDeterministicForASeed) {
  const uint64_t kSeed = 42;
  KeyStrategy strategy = Strategy("random-suffix(day,200)");
  Analyzer a = Make("random-suffix(day,200)", {.top = 1000, .seed = kSeed});
  Analyzer same = Make("random-suffix(day,200)", {.top = 1000, .seed = kSeed});
  Analyzer other = Make("random-suffix(day,200)", {.top = 1000, .seed = kSeed + 1});
  // The i-th Add draws the i-th output of std::mt19937_64(seed).
  std::mt19937_64 random(kSeed);
  std::map<std::string, uint64_t> expected;
  Entity e("", "r");
  e.Set("day", Value::String("2018-08-09"));
  for (int i = 0; i < 20000; ++i) {
    ++expected[strategy.Compute(e, random()).value()];
    a.Add(e);
    same.Add(e);
    other.Add(e);
  }
  AnalysisReport r = a.Finish();
  std::map<std::string, uint64_t> reported;
  for (const PartitionCount& p : r.hottest_logical) reported[p.key] = p.entities;
  EXPECT_EQ(reported, expected);
  EXPECT_EQ(r.logical.partitions, 200u);
  EXPECT_EQ(Hottest(same.Finish()), Hottest(r));
  EXPECT_NE(Hottest(other.Finish()), Hottest(r));
}

TEST(AnalyzerTest, ReadFanoutIsTheShardCount) {
  EXPECT_EQ(Make("hash-suffix(d,id,400)").Finish().read_fanout, 400u);
  EXPECT_EQ(Make("random-suffix(d,7)").Finish().read_fanout, 7u);
  EXPECT_EQ(Make("concat(a,b,sep=-)").Finish().read_fanout, 1u);
  EXPECT_EQ(Make("md5-bits(id,4)").Finish().read_fanout, 1u);
}

TEST(AnalyzerTest, CreateRejectsBadStrategyAndPartitionCount) {
  Result<Analyzer> bad_n = Analyzer::Create(KeyStrategy::RandomSuffix("day", 0));
  ASSERT_THAT(bad_n, StatusIs(Status::Code::kInvalidArgument));
  for (uint32_t n : {0u, AnalyzerOptions::kMaxPhysicalPartitions + 1}) {
    Result<Analyzer> a = Analyzer::Create(Strategy("concat(a)"), {.physical_partitions = n});
    ASSERT_THAT(a, StatusIs(Status::Code::kInvalidArgument)) << n;
    EXPECT_NE(std::string(a.status().message()).find("physical_partitions"), std::string::npos);
  }
  EXPECT_OK(Analyzer::Create(Strategy("concat(a)"),
                             {.physical_partitions = AnalyzerOptions::kMaxPhysicalPartitions}));
}

TEST(AnalyzerTest, JsonCarriesTheReport) {
  Analyzer a = Make("concat(PartitionKey)", {.physical_partitions = 2});
  a.Add(Entity("hot", "1"));
  a.Add(Entity("hot", "2"));
  a.Add(Entity(std::string("bad\xff"), "1"));  // not UTF-8
  a.Add(Entity("", "1"));                      // no PartitionKey: an error
  nlohmann::json j = nlohmann::json::parse(AnalysisReportToJson(a.Finish()));
  EXPECT_EQ(j["strategy"], "concat(PartitionKey,sep=-)");
  EXPECT_EQ(j["physical_partitions"], 2);
  EXPECT_EQ(j["logical"]["partitions"], 2);
  EXPECT_EQ(j["logical"]["max"], 2);
  EXPECT_DOUBLE_EQ(j["logical"]["hottest_share"].get<double>(), 2.0 / 3);
  EXPECT_EQ(j["physical_counts"].size(), 2u);
  EXPECT_EQ(j["hottest_logical"][0]["key"], "hot");
  EXPECT_EQ(j["hottest_logical"][1]["key"], "bad\xEF\xBF\xBD");  // U+FFFD
  EXPECT_EQ(j["read_fanout"], 1);
  EXPECT_EQ(j["errors"], 1);
  EXPECT_NE(j["first_error"].get<std::string>().find("PartitionKey"), std::string::npos);
  ASSERT_EQ(j["cloud"].size(), 3u);
  EXPECT_EQ(j["cloud"][0]["profile"], "azure-table");
  EXPECT_EQ(j["cloud"][0]["bottleneck_partition"], "hot");
  EXPECT_DOUBLE_EQ(j["cloud"][0]["seconds_with_skew"].get<double>(), 2.0 / 2000);
  EXPECT_EQ(j["cloud"][2]["unit"], "RU/s");
}

}  // namespace
}  // namespace partkv
