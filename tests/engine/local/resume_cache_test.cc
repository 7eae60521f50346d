// ResumeCache (engine/local/resume_cache.h): an entry comes back once, only to its owner, token and
// type, and only while the store's sequence number is the one it was kept at; writes and the size
// bound drop entries.

#include "engine/local/resume_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace partkv::engine {
namespace {

std::shared_ptr<int> State(int v) { return std::make_shared<int>(v); }
int ValueOf(const std::shared_ptr<int>& p) { return *p; }

TEST(ResumeCacheTest, AnEntryComesBackOnceToItsOwnerAndToken) {
  ResumeCache cache;
  int owner_a = 0, owner_b = 0;
  cache.Put(&owner_a, "t1", 7, State(1));
  cache.Put(&owner_a, "t2", 7, State(2));
  EXPECT_EQ(cache.Take<int>(&owner_b, "t1", 7), nullptr);  // another table's query
  EXPECT_EQ(cache.Take<int>(&owner_a, "t3", 7), nullptr);  // another token
  auto got = cache.Take<int>(&owner_a, "t1", 7);
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(ValueOf(got), 1);
  EXPECT_EQ(cache.Take<int>(&owner_a, "t1", 7), nullptr);  // taken: gone
  EXPECT_EQ(ValueOf(cache.Take<int>(&owner_a, "t2", 7)), 2);
  EXPECT_EQ(cache.size(), 0u);
}

// An entry comes back only as the type it was left as (a query's stream is never resumed as
// another kind of read's).
TEST(ResumeCacheTest, AnEntryComesBackOnlyAsItsOwnType) {
  ResumeCache cache;
  int owner = 0;
  cache.Put(&owner, "t", 7, State(1));
  EXPECT_EQ(cache.Take<double>(&owner, "t", 7), nullptr);
  cache.Put(&owner, "t", 7, State(1));
  EXPECT_EQ(ValueOf(cache.Take<int>(&owner, "t", 7)), 1);
}

TEST(ResumeCacheTest, TwoReadersOfOneTokenEachTakeTheirOwnEntry) {
  ResumeCache cache;
  int owner = 0;
  cache.Put(&owner, "t", 7, State(1));
  cache.Put(&owner, "t", 7, State(2));
  auto first = cache.Take<int>(&owner, "t", 7);
  auto second = cache.Take<int>(&owner, "t", 7);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(ValueOf(first) + ValueOf(second), 3);
  EXPECT_EQ(cache.Take<int>(&owner, "t", 7), nullptr);
}

TEST(ResumeCacheTest, AnEntryOfAnotherSequenceNumberIsNeverUsed) {
  ResumeCache cache;
  int owner = 0;
  cache.Put(&owner, "t", 7, State(1));
  EXPECT_EQ(cache.Take<int>(&owner, "t", 8), nullptr);  // something was written since
  EXPECT_EQ(cache.Take<int>(&owner, "t", 7), nullptr);  // and the stale entry was dropped
  cache.Put(&owner, "old", 7, State(1));
  cache.Put(&owner, "new", 9, State(2));  // a later page drops what is stale
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(ValueOf(cache.Take<int>(&owner, "new", 9)), 2);
}

TEST(ResumeCacheTest, WritesAndTheBoundDropEntries) {
  ResumeCache cache;
  int owner = 0;
  for (size_t i = 0; i < ResumeCache::kEntries + 3; ++i) {
    cache.Put(&owner, "t" + std::to_string(i), 1, State(static_cast<int>(i)));
  }
  EXPECT_EQ(cache.size(), ResumeCache::kEntries);
  EXPECT_EQ(cache.Take<int>(&owner, "t0", 1), nullptr);  // the oldest went first
  EXPECT_NE(cache.Take<int>(&owner, "t" + std::to_string(ResumeCache::kEntries + 2), 1), nullptr);
  cache.OnWrite();
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.Take<int>(&owner, "t5", 1), nullptr);
}

}  // namespace
}  // namespace partkv::engine
