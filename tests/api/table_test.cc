// Entity semantics of a table (docs/design.md "Semantics"): unique keys under racing writers, ETag
// preconditions, upserts, merges, deletes, Timestamps.

#include "partkv/table.h"

#include <atomic>
#include <barrier>
#include <set>
#include <thread>
#include <vector>

#include "api/front/front_access.h"
#include "engine/local/store_state.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/store_fixture.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

using TableTest = testing::StoreFixture;

TEST_F(TableTest, InsertThenGetReturnsEntityWithSystemProperties) {
  auto w = table_->Insert(Make("p", "r", 5));
  ASSERT_OK(w);
  EXPECT_EQ(Get("p", "r"), "{n=5}");
  auto e = table_->Get("p", "r");
  ASSERT_OK(e);
  EXPECT_EQ(e->etag(), w->etag);
  EXPECT_EQ(e->timestamp(), w->timestamp);
  EXPECT_GT(e->timestamp().ticks, DateTime::kUnixEpochTicks);
  EXPECT_EQ(Get("p", "other"), "NOT_FOUND");
}

TEST_F(TableTest, InsertOfExistingKeyFailsAndKeepsOriginal) {
  ASSERT_OK(table_->Insert(Make("p", "r", 1)));
  auto again = table_->Insert(Make("p", "r", 2));
  EXPECT_THAT(again, StatusIs(Status::Code::kAlreadyExists));
  EXPECT_EQ(Get("p", "r"), "{n=1}");
}

TEST_F(TableTest, InsertIsUniqueUnderRace) {
  constexpr int kThreads = 8;
  constexpr int kKeys = 10000;
  std::atomic<int> successes{0}, conflicts{0}, errors{0};
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int k = 0; k < kKeys; ++k) {
        // Every thread inserts the same 10,000 keys, each with its own value.
        auto r = table_->Insert(Make("p" + std::to_string(k % 97), "r" + std::to_string(k), t));
        if (r.ok()) {
          ++successes;
        } else if (r.status().IsAlreadyExists()) {
          ++conflicts;
        } else {
          ++errors;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(successes.load(), kKeys);
  EXPECT_EQ(conflicts.load(), kKeys * (kThreads - 1));
  EXPECT_EQ(errors.load(), 0);
}

TEST_F(TableTest, StaleEtagReplaceMergeDeleteChangeNothing) {
  auto first = table_->Insert(Make("p", "r", 1));
  ASSERT_OK(first);
  auto second = table_->Replace(Make("p", "r", 2), IfMatch::ETag(first->etag));
  ASSERT_OK(second);
  EXPECT_NE(second->etag, first->etag);

  const IfMatch stale = IfMatch::ETag(first->etag);
  EXPECT_THAT(table_->Replace(Make("p", "r", 3), stale),
              StatusIs(Status::Code::kPreconditionFailed));
  Entity m("p", "r");
  m.Set("extra", Value::Boolean(true));
  EXPECT_THAT(table_->Merge(m, stale), StatusIs(Status::Code::kPreconditionFailed));
  EXPECT_THAT(table_->Delete("p", "r", stale), StatusIs(Status::Code::kPreconditionFailed));
  // A malformed ETag matches nothing locally; Azure refuses it as 400 InvalidInput, which a
  // remote store reports as InvalidArgument. Either way nothing changes.
  Status garbage = table_->Delete("p", "r", IfMatch::ETag("garbage"));
  EXPECT_THAT(garbage, StatusIs(remote() ? Status::Code::kInvalidArgument
                                         : Status::Code::kPreconditionFailed))
      << garbage.ToString();

  EXPECT_EQ(Get("p", "r"), "{n=2}");
  EXPECT_EQ(EtagOf("p", "r"), second->etag);
}

TEST_F(TableTest, ConditionalWritesOnMissingEntityAreNotFound) {
  EXPECT_THAT(table_->Replace(Make("p", "r", 1), IfMatch::Any()),
              StatusIs(Status::Code::kNotFound));
  EXPECT_THAT(table_->Merge(Make("p", "r", 1), IfMatch::Any()), StatusIs(Status::Code::kNotFound));
  EXPECT_THAT(table_->Delete("p", "r", IfMatch::Any()), StatusIs(Status::Code::kNotFound));
  EXPECT_EQ(Get("p", "r"), "NOT_FOUND");
}

TEST_F(TableTest, ReplaceDropsAbsentPropertiesMergeKeepsThem) {
  Entity e("p", "r");
  e.Set("a", Value::Int32(1)).Set("b", Value::String("x"));
  ASSERT_OK(table_->Insert(e));
  Entity patch("p", "r");
  patch.Set("b", Value::Int64(7)).Set("c", Value::Boolean(false));
  ASSERT_OK(table_->Merge(patch, IfMatch::Any()));
  EXPECT_EQ(Get("p", "r"), "{a=1,b=7L,c=false}");
  Entity replacement("p", "r");
  replacement.Set("z", Value::Double(0.5));
  ASSERT_OK(table_->Replace(replacement, IfMatch::Any()));
  EXPECT_EQ(Get("p", "r"), "{z=0.5}");
}

TEST_F(TableTest, UpsertsNeverFailOnExistence) {
  ASSERT_OK(table_->InsertOrReplace(Make("p", "r", 1)));
  EXPECT_EQ(Get("p", "r"), "{n=1}");
  ASSERT_OK(table_->InsertOrReplace(Make("p", "r", 2)));
  EXPECT_EQ(Get("p", "r"), "{n=2}");
  Entity extra("p", "r");
  extra.Set("m", Value::Int32(9));
  ASSERT_OK(table_->InsertOrMerge(extra));
  EXPECT_EQ(Get("p", "r"), "{m=9,n=2}");
  ASSERT_OK(table_->InsertOrMerge(Make("q", "r", 3)));
  EXPECT_EQ(Get("q", "r"), "{n=3}");
}

TEST_F(TableTest, DeleteWithCurrentEtagRemoves) {
  auto w = table_->Insert(Make("p", "r", 1));
  ASSERT_OK(w);
  ASSERT_OK(table_->Delete("p", "r", IfMatch::ETag(w->etag)));
  EXPECT_EQ(Get("p", "r"), "NOT_FOUND");
  ASSERT_OK(table_->Insert(Make("p", "r", 2)));  // the key is free again
  EXPECT_EQ(Get("p", "r"), "{n=2}");
}

TEST_F(TableTest, EtagsNeverRepeatForAKeyAcrossRestartsAndClockSteps) {
  PARTKV_REQUIRE_LOCAL("steps the local engine's clock");
  std::set<std::string> seen;
  int64_t fake_now = DateTime::FromUnixMicros(1'900'000'000'000'000).ticks;
  auto write_some = [&] {
    for (int i = 0; i < 50; ++i) {
      auto w = table_->InsertOrReplace(Make("p", "r", i));
      ASSERT_OK(w);
      EXPECT_TRUE(seen.insert(w->etag).second) << "repeated ETag " << w->etag;
    }
  };
  FrontAccess::Of(*store_).SetClockForTesting([&] { return fake_now; });
  write_some();
  auto before = table_->Get("p", "r");
  ASSERT_OK(before);
  for (int restart = 0; restart < 3; ++restart) {
    Reopen();
    OpenTable();
    fake_now -= 10'000'000'000LL;  // the wall clock steps back 1000 s at every restart
    FrontAccess::Of(*store_).SetClockForTesting([&] { return fake_now; });
    write_some();
  }
  auto after = table_->Get("p", "r");
  ASSERT_OK(after);
  // The Timestamp of one entity never goes backwards, even though the clock did.
  EXPECT_GT(after->timestamp().ticks, before->timestamp().ticks);
  EXPECT_EQ(seen.size(), 200u);
}

TEST_F(TableTest, InvalidEntityIsRejectedAndNothingWritten) {
  Entity bad("p", "r/1");
  Status s = table_->Insert(bad).status();
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("RowKey"), std::string_view::npos) << s.ToString();
  EXPECT_EQ(Get("p", "r/1"), "NOT_FOUND");
  Entity too_big("p", "r");
  too_big.Set("s", Value::String(std::string(40000, 'x')));
  EXPECT_THAT(table_->Insert(too_big), StatusIs(Status::Code::kInvalidArgument));
  EXPECT_EQ(Get("p", "r"), "NOT_FOUND");
}

TEST_F(TableTest, DroppedTableHandleReportsNotFound) {
  ASSERT_OK(table_->Insert(Make("p", "r", 1)));
  ASSERT_OK(store_->DropTable("Items"));
  EXPECT_THAT(table_->Get("p", "r"), StatusIs(Status::Code::kNotFound));
  EXPECT_THAT(table_->Insert(Make("p", "s", 1)), StatusIs(Status::Code::kNotFound));
  EXPECT_THAT(store_->OpenTable("Items"), StatusIs(Status::Code::kNotFound));
}

}  // namespace
}  // namespace partkv
