#include "engine/local/throttle.h"

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace partkv::engine {
namespace {

using ::partkv::testing::StatusIs;

TEST(TokenBucket, StartsWithOneSecondAndBanksUpToCapacity) {
  TokenBucket b;
  // rate 1000/s, capacity 300 s.
  EXPECT_EQ(b.TryTake(1000, 1000, 300000, 0), 0);
  int64_t wait = b.TryTake(1, 1000, 300000, 0);
  EXPECT_EQ(wait, 1000);  // one unit refills in 1 ms
  // Idle 10 s banks 10,000 units.
  EXPECT_EQ(b.TryTake(10000, 1000, 300000, 10'000'000), 0);
  EXPECT_GT(b.TryTake(1, 1000, 300000, 10'000'000), 0);
  // Idle 1,000 s banks only the 300 s capacity.
  EXPECT_EQ(b.TryTake(300000, 1000, 300000, 1'010'000'000), 0);
  EXPECT_GT(b.TryTake(1, 1000, 300000, 1'010'000'000), 0);
}

TEST(TokenBucket, CostAboveCapacityIsTakenFromAFullBucketAsDebt) {
  TokenBucket b;
  EXPECT_EQ(b.TryTake(5000, 1000, 1000, 0), 0);          // 1000 held, 5000 taken: 4000 in debt
  EXPECT_EQ(b.TryTake(1, 1000, 1000, 4'000'000), 1000);  // still short after 4 s
  EXPECT_EQ(b.TryTake(1, 1000, 1000, 4'001'000), 0);
}

TEST(Throttler, RetryAfterIsTheRefillTime) {
  auto clock = std::make_shared<ManualClock>();
  ThroughputModel m{
      ThroughputModel::Scope::kLogicalPartition, 100, 0, 1, "entities", "entities", "503"};
  Throttler t(m, 4, clock);
  for (int i = 0; i < 100; ++i) ASSERT_OK(t.Charge(true, "p", 0, 1)) << i;
  Status s = t.Charge(true, "p", 0, 1);
  ASSERT_THAT(s, StatusIs(Status::Code::kThrottled));
  EXPECT_EQ(s.retry_after().count(), 10);  // 1 unit at 100/s
  EXPECT_NE(s.message().find("partition 'p'"), std::string_view::npos) << s.ToString();
  EXPECT_OK(t.Charge(true, "q", 0, 1));  // another logical partition has its own budget
  clock->Advance(10'000);
  EXPECT_OK(t.Charge(true, "p", 0, 1));
}

TEST(Throttler, ReadsHaveTheirOwnBucketWhenTheProfileSaysSo) {
  auto clock = std::make_shared<ManualClock>();
  ThroughputModel m{ThroughputModel::Scope::kLogicalPartition, 10, 30, 1, "WCU", "RCU", "400"};
  Throttler t(m, 1, clock);
  for (int i = 0; i < 10; ++i) ASSERT_OK(t.Charge(true, "p", 0, 1));
  EXPECT_THAT(t.Charge(true, "p", 0, 1), StatusIs(Status::Code::kThrottled));
  for (int i = 0; i < 30; ++i) ASSERT_OK(t.Charge(false, "p", 0, 1)) << i;
  EXPECT_THAT(t.Charge(false, "p", 0, 1), StatusIs(Status::Code::kThrottled));
}

}  // namespace
}  // namespace partkv::engine
