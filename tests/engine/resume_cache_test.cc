// ResumeCache (engine/resume_cache.h): an entry comes back once, only to its owner and token, and
// only while the store's sequence number is the one it was kept at; writes and the size bound
// drop entries.

#include "engine/resume_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace partkv::engine {
namespace {

std::shared_ptr<void> State(int v) { return std::make_shared<int>(v); }
int ValueOf(const std::shared_ptr<void>& p) { return *static_cast<int*>(p.get()); }

TEST(ResumeCacheTest, AnEntryComesBackOnceToItsOwnerAndToken) {
  ResumeCache cache;
  int owner_a = 0, owner_b = 0;
  cache.Put(&owner_a, "t1", 7, State(1));
  cache.Put(&owner_a, "t2", 7, State(2));
  EXPECT_EQ(cache.Take(&owner_b, "t1", 7), nullptr);  // another table's query
  EXPECT_EQ(cache.Take(&owner_a, "t3", 7), nullptr);  // another token
  auto got = cache.Take(&owner_a, "t1", 7);
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(ValueOf(got), 1);
  EXPECT_EQ(cache.Take(&owner_a, "t1", 7), nullptr);  // taken: gone
  EXPECT_EQ(ValueOf(cache.Take(&owner_a, "t2", 7)), 2);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(ResumeCacheTest, TwoReadersOfOneTokenEachTakeTheirOwnEntry) {
  ResumeCache cache;
  int owner = 0;
  cache.Put(&owner, "t", 7, State(1));
  cache.Put(&owner, "t", 7, State(2));
  auto first = cache.Take(&owner, "t", 7);
  auto second = cache.Take(&owner, "t", 7);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(ValueOf(first) + ValueOf(second), 3);
  EXPECT_EQ(cache.Take(&owner, "t", 7), nullptr);
}

TEST(ResumeCacheTest, AnEntryOfAnotherSequenceNumberIsNeverUsed) {
  ResumeCache cache;
  int owner = 0;
  cache.Put(&owner, "t", 7, State(1));
  EXPECT_EQ(cache.Take(&owner, "t", 8), nullptr);  // something was written since
  EXPECT_EQ(cache.Take(&owner, "t", 7), nullptr);  // and the stale entry was dropped
  cache.Put(&owner, "old", 7, State(1));
  cache.Put(&owner, "new", 9, State(2));  // a later page drops what is stale
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(ValueOf(cache.Take(&owner, "new", 9)), 2);
}

TEST(ResumeCacheTest, WritesAndTheBoundDropEntries) {
  ResumeCache cache;
  int owner = 0;
  for (size_t i = 0; i < ResumeCache::kEntries + 3; ++i) {
    cache.Put(&owner, "t" + std::to_string(i), 1, State(static_cast<int>(i)));
  }
  EXPECT_EQ(cache.size(), ResumeCache::kEntries);
  EXPECT_EQ(cache.Take(&owner, "t0", 1), nullptr);  // the oldest went first
  EXPECT_NE(cache.Take(&owner, "t" + std::to_string(ResumeCache::kEntries + 2), 1), nullptr);
  cache.OnWrite();
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.Take(&owner, "t5", 1), nullptr);
}

}  // namespace
}  // namespace partkv::engine
