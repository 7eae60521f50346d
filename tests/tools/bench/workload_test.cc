// The comparison's workload generator, strategies, batching and read plans
// (tools/bench/workload.h, strategies.h): deterministic by seed, shaped as documented, and
// batches that hold every event exactly once under the keys the analyzer computes.

#include "tools/bench/workload.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "gtest/gtest.h"
#include "partkv/analyzer.h"
#include "partkv/filter.h"
#include "tests/testing/status_matchers.h"
#include "tools/bench/comparison.h"
#include "tools/bench/dataset.h"
#include "tools/bench/strategies.h"

namespace partkv::compare {
namespace {

WorkloadOptions Small(uint64_t events = 20000, uint32_t days = 7, uint64_t seed = 7) {
  WorkloadOptions o;
  o.events = events;
  o.days = days;
  o.seed = seed;
  return o;
}

TEST(WorkloadTest, SameSeedGivesTheSameEntities) {
  const Workload a = Workload::Generate(Small()), b = Workload::Generate(Small());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); i += 997) {
    EXPECT_TRUE(a.MakeEntity(i).SameContent(b.MakeEntity(i))) << "event " << i;
  }
}

TEST(WorkloadTest, OtherSeedGivesOtherEvents) {
  const Workload a = Workload::Generate(Small(20000, 7, 1)),
                 b = Workload::Generate(Small(20000, 7, 2));
  size_t differ = 0;
  for (size_t i = 0; i < a.size(); ++i) differ += a.events()[i].device != b.events()[i].device;
  EXPECT_GT(differ, a.size() / 2);
}

TEST(WorkloadTest, EventsAreInTimeOrderAndSplitIntoTheDays) {
  const Workload w = Workload::Generate(Small(20000, 5));
  ASSERT_EQ(w.size(), 20000u);
  uint64_t total = 0;
  for (uint32_t d = 0; d < 5; ++d) {
    total += w.EventsOnDay(d);
    const int64_t day_start = (Workload::kStartUnixSeconds + d * 86400LL) * 1000000;
    for (size_t i = w.DayBegin(d); i < w.DayBegin(d + 1); ++i) {
      ASSERT_EQ(w.DayOf(i), d);
      ASSERT_GE(w.events()[i].unix_micros, day_start);
      ASSERT_LT(w.events()[i].unix_micros, day_start + 86400LL * 1000000);
    }
  }
  EXPECT_EQ(total, w.size());
  EXPECT_TRUE(
      std::is_sorted(w.events().begin(), w.events().end(),
                     [](const Event& a, const Event& b) { return a.unix_micros < b.unix_micros; }));
  EXPECT_EQ(Workload::DateText(0), "2026-11-02");
  EXPECT_EQ(Workload::DateText(30), "2026-12-02");
  EXPECT_EQ(w.Attributes(w.DayBegin(4)).Get("date")->as_string(), "2026-11-06");
}

TEST(WorkloadTest, BurstHourIsTheBusiestHour) {
  const Workload w = Workload::Generate(Small(50000, 7));
  std::map<int64_t, uint64_t> per_hour;
  for (const Event& e : w.events()) ++per_hour[e.unix_micros / 3600000000LL];
  const auto busiest = std::max_element(per_hour.begin(), per_hour.end(),
                                        [](auto& a, auto& b) { return a.second < b.second; });
  EXPECT_EQ(busiest->second, w.BurstEnd() - w.BurstBegin());
  EXPECT_EQ(w.DayOf(w.BurstBegin()), w.burst_day());
  EXPECT_EQ(w.burst_day(), 3u);
  // Six times the busiest ordinary hour.
  uint64_t second = 0;
  for (const auto& [hour, n] : per_hour) {
    if (n != busiest->second) second = std::max(second, n);
  }
  EXPECT_NEAR(static_cast<double>(busiest->second) / second, 6.0, 0.5);
}

TEST(WorkloadTest, DevicesAreZipfSkewed) {
  const Workload w = Workload::Generate(Small(100000));
  std::map<uint32_t, uint64_t> per_device;
  for (const Event& e : w.events()) ++per_device[e.device];
  std::vector<uint64_t> counts;
  for (const auto& [d, n] : per_device) counts.push_back(n);
  std::sort(counts.rbegin(), counts.rend());
  // Zipf(1.0) over 2,000 devices: the busiest sends about 1/H(2000) = 12 % of the events.
  EXPECT_NEAR(static_cast<double>(counts[0]) / w.size(), 0.122, 0.01);
  EXPECT_GT(counts[0], 50 * counts[counts.size() / 2]);
}

TEST(WorkloadTest, EntitiesHaveTypedPropertiesOfRealisticSize) {
  const Workload w = Workload::Generate(Small());
  const Entity e = w.MakeEntity(123);
  std::set<Type> types;
  for (const auto& [name, value] : e) types.insert(value.type());
  for (Type t : {Type::kString, Type::kInt32, Type::kInt64, Type::kDouble, Type::kDateTime,
                 Type::kGuid, Type::kBoolean}) {
    EXPECT_EQ(types.count(t), 1u) << TypeName(t);
  }
  const Workload::SizeStats sizes =
      DataSet::FromWorkload(std::make_shared<const Workload>(w)).SampleValueSizes(5000);
  EXPECT_GE(sizes.min, 200u);
  EXPECT_LE(sizes.max, 1024u);
  EXPECT_GT(sizes.mean, 350);
  EXPECT_LT(sizes.mean, 700);
}

TEST(WorkloadTest, NaturalAttributesAreTheEntitysOwnAndOrderIdsAreUnique) {
  const Workload w = Workload::Generate(Small());
  std::set<std::string> order_ids;
  for (size_t i = 0; i < w.size(); i += 7) {
    const Entity a = w.Attributes(i), e = w.MakeEntity(i);
    for (const char* name : {"date", "deviceId", "orderId", "time"}) {
      ASSERT_NE(a.Get(name), nullptr) << name;
      ASSERT_EQ(*a.Get(name), *e.Get(name)) << name;
    }
    EXPECT_TRUE(order_ids.insert(a.Get("orderId")->as_string()).second);
  }
  EXPECT_EQ(Workload::OrderId(0), "ORD-00000001");
}

TEST(StrategiesTest, TheSixStrategiesOfTheComparison) {
  std::vector<std::string> texts;
  for (const StrategySpec& s : DefaultStrategies()) texts.push_back(s.partition_key.ToString());
  EXPECT_EQ(texts, (std::vector<std::string>{
                       "concat(date,sep=-)",
                       "concat(deviceId,date,sep=-)",
                       "random-suffix(date,200)",
                       "hash-suffix(date,orderId,200,hash=xxh3)",
                       "hash-suffix(date,orderId,200,hash=codepoint-product)",
                       "md5-bits(deviceId,4)",
                   }));
}

TEST(StrategiesTest, BatchesHoldOneKeyAndEveryEventOnceUnderTheAnalyzersKeys) {
  const auto workload = std::make_shared<const Workload>(Workload::Generate(Small(20000, 3)));
  const Workload& w = *workload;
  const DataSet data = DataSet::FromWorkload(workload);
  const std::vector<int64_t> replay = ReplayTimes(data, 5000);
  for (const StrategySpec& spec : DefaultStrategies()) {
    SCOPED_TRACE(spec.label);
    auto plans = PlanBatches(data, spec, 99, replay);
    ASSERT_OK(plans);
    std::vector<int> seen(w.size(), 0);
    std::map<std::string, uint64_t> per_key;
    int64_t last_send = 0;
    for (const BatchPlan& p : *plans) {
      ASSERT_FALSE(p.events.empty());
      ASSERT_LE(p.events.size(), kMaxBatch);
      ASSERT_GE(p.send_micros, last_send);
      last_send = p.send_micros;
      // Sent when full or once its oldest entity has waited the linger time.
      ASSERT_LE(p.send_micros, replay[p.events.front()] + kLingerMicros);
      for (uint32_t i : p.events) {
        ++seen[i];
        ++per_key[p.partition_key];
        if (spec.partition_key.kind() != KeyStrategy::Kind::kRandomSuffix) {
          ASSERT_EQ(*spec.partition_key.Compute(w.Attributes(i)), p.partition_key);
        }
      }
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    // The analyzer, with the same seed, keys the entities exactly as the batches do.
    AnalyzerOptions ao;
    ao.seed = 99;
    ao.top = 5;
    auto analyzer = Analyzer::Create(spec.partition_key, ao);
    ASSERT_OK(analyzer);
    for (size_t i = 0; i < w.size(); ++i) analyzer->Add(w.Attributes(i));
    const AnalysisReport report = analyzer->Finish();
    EXPECT_EQ(report.logical.partitions, per_key.size());
    for (const PartitionCount& hot : report.hottest_logical) {
      EXPECT_EQ(per_key[hot.key], hot.entities) << hot.key;
    }
  }
}

TEST(StrategiesTest, ReadsGoStraightToTheKeyWhenTheAttributesGiveIt) {
  const auto specs = DefaultStrategies();
  Entity day;
  day.Set("date", Value::String("2026-11-03"));
  Entity device_day = day;
  device_day.Set("deviceId", Value::String("dev-00042"));
  const KeyStrategy row_key = RowKeyScheme();
  auto plan = [&](const StrategySpec& s, const Entity& a) {
    return *PlanRead(s.partition_key, row_key, a);
  };

  ReadPlan p = plan(specs[0], day);  // date
  EXPECT_EQ(p.kind, ReadPlan::Kind::kOnePartition);
  EXPECT_EQ(p.key, "2026-11-03");
  EXPECT_EQ(p.filter, "");
  p = plan(specs[0], device_day);
  EXPECT_EQ(p.key, "2026-11-03");
  EXPECT_EQ(p.filter, "deviceId eq 'dev-00042'");

  p = plan(specs[1], day);  // concat(deviceId,date): the day is spread over every device
  EXPECT_EQ(p.kind, ReadPlan::Kind::kTableScan);
  EXPECT_EQ(p.filter, "date eq '2026-11-03'");
  p = plan(specs[1], device_day);
  EXPECT_EQ(p.kind, ReadPlan::Kind::kOnePartition);
  EXPECT_EQ(p.key, "dev-00042-2026-11-03");
  // Two fields joined by '-' may be ambiguous ("dev-00042" holds the separator): both filtered.
  EXPECT_EQ(p.filter, "date eq '2026-11-03' and deviceId eq 'dev-00042'");

  for (size_t s : {2, 3, 4}) {  // the suffixed dates fan out to their 200 shards
    p = plan(specs[s], device_day);
    EXPECT_EQ(p.kind, ReadPlan::Kind::kShards) << specs[s].label;
    EXPECT_EQ(p.key, "2026-11-03");
    EXPECT_EQ(p.fanout, 200u);
    EXPECT_EQ(p.filter, "deviceId eq 'dev-00042'");
  }

  p = plan(specs[5], device_day);  // md5-bits: a bucket of devices, all days
  EXPECT_EQ(p.kind, ReadPlan::Kind::kOnePartition);
  EXPECT_EQ(p.key.size(), 4u);
  EXPECT_EQ(p.filter, "date eq '2026-11-03' and deviceId eq 'dev-00042'");
  EXPECT_EQ(plan(specs[5], day).kind, ReadPlan::Kind::kTableScan);

  // With the RowKey's orderId too, every strategy reads one entity: a Get, or one per shard of
  // the random suffix.
  Entity one = device_day;
  one.Set("orderId", Value::String("ORD-00000042"));
  for (size_t s = 0; s < specs.size(); ++s) {
    p = plan(specs[s], one);
    EXPECT_EQ(p.kind, ReadPlan::Kind::kPoint) << specs[s].label;
    EXPECT_EQ(p.fanout, s == 2 ? 200u : 1u) << specs[s].label;
  }
}

TEST(StrategiesTest, FilterLiteralsNameEachTypeAsTheFilterParserReadsIt) {
  EXPECT_EQ(FilterLiteral(Value::String("it's")), "'it''s'");
  EXPECT_EQ(FilterLiteral(Value::Int32(-5)), "-5");
  EXPECT_EQ(FilterLiteral(Value::Int64(5)), "5L");
  EXPECT_EQ(FilterLiteral(Value::Double(2)), "2.0");
  EXPECT_EQ(FilterLiteral(Value::Double(0.1)), "0.10000000000000001");
  EXPECT_EQ(FilterLiteral(Value::Boolean(true)), "true");
  // Each literal, in a filter, matches exactly the value it came from.
  const Value values[] = {Value::String("a'b"),
                          Value::Int32(7),
                          Value::Int64(-9000000000LL),
                          Value::Double(1e300),
                          Value::Double(0.1),
                          Value::Boolean(false),
                          Value::DateTime(*DateTime::Parse("2026-11-02T10:11:12.1234567Z")),
                          Value::Guid(*Guid::Parse("0f8fad5b-d9cb-469f-a165-70867728950e")),
                          Value::Binary(std::string("\x00\xff\x10", 3))};
  for (const Value& v : values) {
    Entity e("p", "r");
    e.Set("x", v);
    auto f = Filter::Parse("x eq " + FilterLiteral(v));
    ASSERT_OK(f) << FilterLiteral(v);
    EXPECT_TRUE(f->Matches(e)) << FilterLiteral(v);
  }
}

TEST(ReplayTest, TheTimelineIsCompressedToTheReplayRate) {
  const DataSet w =
      DataSet::FromWorkload(std::make_shared<const Workload>(Workload::Generate(Small(30000, 3))));
  const std::vector<int64_t> replay = ReplayTimes(w, 10000);
  ASSERT_EQ(replay.size(), w.size());
  EXPECT_TRUE(std::is_sorted(replay.begin(), replay.end()));
  // 30,000 events at 10,000/s on average span 3 s.
  EXPECT_NEAR(replay.back() / 1e6, 3.0, 0.05);
}

}  // namespace
}  // namespace partkv::compare
