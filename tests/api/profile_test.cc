// Cloud profiles: validation limits per service, deterministic throttling emulation (injected
// clock, no sleeps), retry with back-off, and hot-partition statistics.

#include "partkv/profile.h"

#include <algorithm>

#include "api/front/front_access.h"
#include "engine/local/table_handle.h"
#include "engine/profile_spec.h"
#include "partkv/analyzer.h"
#include "partkv/keys.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/store_fixture.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

class ProfileTest : public ::testing::Test {
 protected:
  void Open(const std::string& profile, bool throttling) {
    StoreOptions o;
    o.profile = profile;
    o.throttling = throttling;
    o.clock = clock_;
    auto s = Store::Open(dir_.Sub("store"), o);
    ASSERT_OK(s);
    store_.emplace(std::move(*s));
    ASSERT_OK(store_->CreateTable("Items"));
    table_.emplace(*store_->OpenTable("Items"));
  }
  // An entity of about 1 KB under DynamoDB's item size: 1 WCU.
  static Entity Item(std::string pk, std::string rk) {
    Entity e(std::move(pk), std::move(rk));
    e.Set("payload", Value::String(std::string(950, 'x')));
    return e;
  }

  testing::TempDir dir_;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(1'000'000);
  std::optional<Store> store_;
  std::optional<Table> table_;
};

// Offers `per_ms` writes every millisecond for `ms` simulated milliseconds; returns successes.
template <typename KeyFn>
int Offer(Table& t, ManualClock& clock, int ms, int per_ms, KeyFn key, int* throttled) {
  int ok = 0, seq = 0;
  for (int step = 0; step < ms; ++step) {
    clock.Advance(1000);
    for (int i = 0; i < per_ms; ++i, ++seq) {
      Entity e(key(seq), "r" + std::to_string(seq));
      e.Set("payload", Value::String(std::string(950, 'x')));
      auto r = t.Insert(e);
      if (r.ok()) {
        ++ok;
      } else {
        EXPECT_THAT(r, StatusIs(Status::Code::kThrottled));
        EXPECT_GT(r.status().retry_after().count(), 0);
        ++*throttled;
      }
    }
  }
  return ok;
}

TEST_F(ProfileTest, DynamoDbHotPartitionIsHeldTo1000WcuPerSecondAfterItsBurst) {
  Open("dynamodb", true);
  ASSERT_EQ(engine::WriteCost(FrontAccess::Of(*table_).data().profile(), Item("hot", "r")), 1);
  int throttled = 0;
  // 2,000 writes/s offered for 10 s to one partition key.
  int ok = Offer(
      *table_, *clock_, 10000, 2, [](int) { return std::string("hot"); }, &throttled);
  // One second banked at the start, then 1,000 WCU/s.
  EXPECT_NEAR(ok, 11000, 20);
  EXPECT_EQ(ok + throttled, 20000);
  TableStats s = table_->Statistics();
  EXPECT_EQ(s.total.throttled, static_cast<uint64_t>(throttled));
  EXPECT_EQ(s.total.writes, static_cast<uint64_t>(ok));
  ASSERT_FALSE(s.hottest.empty());
  EXPECT_EQ(s.hottest[0].partition_key, "hot");
}

TEST_F(ProfileTest, DynamoDbBanksUnusedCapacityAsBurst) {
  Open("dynamodb", true);
  clock_->Advance(5'000'000);  // idle 5 s after the partition's first write
  ASSERT_OK(table_->Insert(Item("hot", "first")));
  clock_->Advance(5'000'000);
  int written = 0;
  while (table_->Insert(Item("hot", "b" + std::to_string(written))).ok()) ++written;
  // 1 s at creation + 5 s banked, minus the first write.
  EXPECT_NEAR(written, 5999, 2);
}

TEST_F(ProfileTest, SameLoadSpreadByHashSuffixIsNotThrottled) {
  Open("dynamodb", true);
  KeyStrategy spread = KeyStrategy::HashSuffix("date", "orderId", 200);
  int throttled = 0;
  int ok = Offer(
      *table_, *clock_, 10000, 2,
      [&](int seq) {
        Entity e;
        e.Set("date", Value::String("2018-08-09"))
            .Set("orderId", Value::String("ORD-" + std::to_string(seq)));
        return *spread.Compute(e);
      },
      &throttled);
  EXPECT_EQ(throttled, 0);
  EXPECT_EQ(ok, 20000);
}

TEST_F(ProfileTest, CosmosPhysicalPartitionIsHeldTo10000RuPerSecond) {
  Open("cosmos", true);
  engine::SharedTable& data = FrontAccess::Of(*table_).data();
  // Many logical partitions, all in physical partition 0: they share its budget.
  std::vector<std::string> keys;
  for (int i = 0; keys.size() < 50; ++i) {
    std::string pk = "tenant-" + std::to_string(i);
    if (data.PartitionIndexOf(pk) == 0) keys.push_back(pk);
  }
  double cost = engine::WriteCost(data.profile(), Item("tenant-0", "r0"));
  ASSERT_GT(cost, 4.0);
  int throttled = 0;
  int per_ms = 4;  // 4,000 writes/s of about 5 RU each: about twice the budget
  int ok = Offer(
      *table_, *clock_, 5000, per_ms, [&](int seq) { return keys[seq % keys.size()]; }, &throttled);
  double accepted_ru = ok * cost;
  // 1 s banked + 5 s at 10,000 RU/s; offers come in whole milliseconds, so a little refill
  // is left unused at each step.
  EXPECT_LE(accepted_ru, 10000.0 * 6 + cost);
  EXPECT_GE(accepted_ru, 10000.0 * 6 * 0.99);
  EXPECT_GT(throttled, 0);
  EXPECT_EQ(table_->Statistics().partitions[0].throttled, static_cast<uint64_t>(throttled));
}

TEST_F(ProfileTest, ThrottledWriteLeavesStoreUnchanged) {
  Open("azure-table", true);
  auto first = table_->Insert(Item("p", "keep"));
  ASSERT_OK(first);
  int n = 0;
  while (table_->InsertOrReplace(Item("p", "filler" + std::to_string(n))).ok()) ++n;
  EXPECT_EQ(n, 1999);  // 2,000 entities/s per partition, one already spent
  Entity changed("p", "keep");
  changed.Set("payload", Value::String("changed"));
  EXPECT_THAT(table_->Replace(changed, IfMatch::Any()), StatusIs(Status::Code::kThrottled));
  EXPECT_THAT(table_->Delete("p", "keep", IfMatch::Any()), StatusIs(Status::Code::kThrottled));
  Batch b;
  b.Insert(Item("p", "new1")).Insert(Item("p", "new2"));
  EXPECT_THAT(table_->Submit(b), StatusIs(Status::Code::kThrottled));
  clock_->Advance(2'000'000);  // reads share the budget under azure-table: let it refill
  auto e = table_->Get("p", "keep");
  ASSERT_OK(e);
  EXPECT_EQ(e->etag(), first->etag);
  EXPECT_EQ(e->Get("payload")->as_string(), std::string(950, 'x'));
  EXPECT_THAT(table_->Get("p", "new1"), StatusIs(Status::Code::kNotFound));
}

TEST_F(ProfileTest, RetryThrottledWaitsTheRetryAfterOnTheClock) {
  Open("azure-table", true);
  for (int i = 0; i < 2000; ++i) ASSERT_OK(table_->Insert(Item("p", "r" + std::to_string(i))));
  RetryStats stats;
  int64_t before = clock_->NowMicros();
  auto r = RetryThrottled([&] { return table_->Insert(Item("p", "late")); }, *clock_, {}, &stats);
  ASSERT_OK(r);
  EXPECT_EQ(stats.attempts, 2);
  EXPECT_EQ(stats.throttled, 1);
  EXPECT_EQ(clock_->NowMicros() - before, stats.waited_micros);
  EXPECT_EQ(stats.waited_micros, 1000);  // one entity at 2,000/s = 0.5 ms, rounded up to 1 ms
  RetryPolicy never;
  never.max_attempts = 1;
  for (int i = 0; i < 3000; ++i) (void)table_->Insert(Item("p", "x" + std::to_string(i)));
  EXPECT_THAT(RetryThrottled([&] { return table_->Insert(Item("p", "gives-up")); }, *clock_, never),
              StatusIs(Status::Code::kThrottled));
}

// Azure's target is 2,000 entities/s a partition, read or written: a query is charged each entity
// it examines (the first up front, the rest after the page), not one unit per call.
TEST_F(ProfileTest, AzureTableQueryIsChargedPerEntityExamined) {
  Open("azure-table", true);
  for (int b = 0; b < 15; ++b) {
    clock_->Advance(100'000);  // 200 units refilled: each batch of 100 is paid for
    Batch batch;
    for (int i = 0; i < 100; ++i) batch.Insert(Item("p", "r" + std::to_string(1000 + b * 100 + i)));
    ASSERT_OK(table_->Submit(batch));
  }
  clock_->Advance(10'000'000);  // the bucket full again: 2,000 units
  Query q;
  q.partition_key = "p";
  q.filter = "RowKey ge 'r1000'";
  auto first = table_->QueryEntities(q);
  ASSERT_OK(first);
  ASSERT_EQ(first->entities.size(), 1000u);
  q.continuation = first->continuation;
  auto second = table_->QueryEntities(q);
  ASSERT_OK(second);
  ASSERT_EQ(second->entities.size(), 500u);
  // 1,500 of the 2,000 spent: 500 point reads are left.
  int reads = 0;
  Status s;
  while ((s = table_->Get("p", "r1000").status()).ok() && reads < 2000) ++reads;
  EXPECT_EQ(reads, 500);
  EXPECT_THAT(s, StatusIs(Status::Code::kThrottled));
  // A query of the spent partition is refused up front, and reads nothing.
  q.continuation.clear();
  EXPECT_THAT(table_->QueryEntities(q), StatusIs(Status::Code::kThrottled));
}

TEST_F(ProfileTest, ThrottlingOffByDefault) {
  Open("dynamodb", false);
  for (int i = 0; i < 3000; ++i) ASSERT_OK(table_->Insert(Item("hot", std::to_string(i))));
  EXPECT_EQ(table_->Statistics().total.throttled, 0u);
  EXPECT_EQ(table_->Statistics().total.writes, 3000u);
}

TEST_F(ProfileTest, ProfilesSetValidationLimits) {
  Open("azure-table", false);
  TableOptions dynamo;
  dynamo.profile = "dynamodb";
  ASSERT_OK(store_->CreateTable("Dyn", dynamo));
  Table d = *store_->OpenTable("Dyn");
  EXPECT_OK(d.Insert(Entity("a/b#c", "r")));  // DynamoDB reserves no key characters
  EXPECT_THAT(table_->Insert(Entity("a/b#c", "r")), StatusIs(Status::Code::kInvalidArgument));
  Status empty = d.Insert(Entity("", "r")).status();
  EXPECT_THAT(empty, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_NE(empty.message().find("dynamodb"), std::string_view::npos) << empty.ToString();
  EXPECT_OK(d.Insert(Entity(std::string(2048, 'k'), "r")));
  EXPECT_THAT(d.Insert(Entity(std::string(2049, 'k'), "r")),
              StatusIs(Status::Code::kInvalidArgument));
  Entity big("p", "big");
  big.Set("s", Value::String(std::string(400 * 1024, 'x')));
  EXPECT_THAT(d.Insert(big), StatusIs(Status::Code::kInvalidArgument));

  TableOptions cosmos;
  cosmos.profile = "cosmos";
  ASSERT_OK(store_->CreateTable("Cos", cosmos));
  Table c = *store_->OpenTable("Cos");
  EXPECT_OK(c.Insert(Entity("p", std::string(255, 'r'))));
  EXPECT_THAT(c.Insert(Entity("p", std::string(256, 'r'))),
              StatusIs(Status::Code::kInvalidArgument));
  EXPECT_OK(table_->Insert(Entity("p", std::string(256, 'r'))));

  TableOptions bad;
  bad.profile = "bigtable";
  Status s = store_->CreateTable("Bad", bad);
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("azure-table, cosmos, dynamodb or none"), std::string_view::npos);
}

TEST_F(ProfileTest, ProfileAndThrottlingSurviveReopen) {
  Open("azure-table", false);
  TableOptions o;
  o.profile = "dynamodb";
  o.throttling = true;
  ASSERT_OK(store_->CreateTable("Dyn", o));
  table_.reset();
  store_.reset();
  auto s = Store::Open(dir_.Sub("store"), StoreOptions{.clock = clock_});
  ASSERT_OK(s);
  auto tables = *s->ListTables();
  auto dyn = std::find_if(tables.begin(), tables.end(), [](auto& t) { return t.name == "Dyn"; });
  ASSERT_NE(dyn, tables.end());
  EXPECT_EQ(dyn->profile, "dynamodb");
  EXPECT_TRUE(dyn->throttling);
  auto items =
      std::find_if(tables.begin(), tables.end(), [](auto& t) { return t.name == "Items"; });
  EXPECT_EQ(items->profile, "azure-table");
  EXPECT_FALSE(items->throttling);
}

TEST_F(ProfileTest, StatisticsFindTheHotPartitions) {
  Open("azure-table", false);
  for (int i = 0; i < 500; ++i) {
    std::string pk = i % 2 == 0 ? "hot" : i % 5 == 0 ? "warm" : "cold" + std::to_string(i);
    ASSERT_OK(table_->Insert(Entity(pk, std::to_string(i))));
  }
  ASSERT_OK(table_->Get("hot", "0"));
  Query q;
  q.partition_key = "warm";
  ASSERT_OK(table_->QueryEntities(q));
  TableStats s = table_->Statistics(3);
  EXPECT_EQ(s.total.writes, 500u);
  ASSERT_EQ(s.hottest.size(), 3u);
  EXPECT_EQ(s.hottest[0].partition_key, "hot");
  EXPECT_EQ(s.hottest[0].operations, 251u);  // 250 writes + 1 read
  EXPECT_EQ(s.hottest[1].partition_key, "warm");
  EXPECT_EQ(s.hottest[1].operations, 100u);  // 50 writes + 50 entities read
  uint64_t writes = 0;
  for (const auto& p : s.partitions) writes += p.writes;
  EXPECT_EQ(writes, 500u);
}

}  // namespace
}  // namespace partkv
