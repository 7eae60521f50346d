// WorkerPool (engine/worker_pool.h): every task runs once, at most `width` at once and as many
// as that when the tasks wait for each other; the caller takes part, so nested and concurrent
// ParallelFor calls finish however busy the pool is.

#include "engine/worker_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace partkv::engine {
namespace {

// Spins until `done()` or `limit` passed; false on the limit (a test's bound, not a wait for an
// event that has a known duration).
template <typename Done>
bool WaitFor(Done done, std::chrono::seconds limit = std::chrono::seconds(30)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::yield();
  }
  return true;
}

TEST(WorkerPoolTest, EveryTaskRunsExactlyOnce) {
  WorkerPool pool(7);
  for (size_t width : {1, 2, 8, 64}) {
    for (size_t count : {0, 1, 7, 1000}) {
      std::vector<std::atomic<int>> runs(count);
      pool.ParallelFor(count, width, [&](size_t i) { runs[i].fetch_add(1); });
      for (size_t i = 0; i < count; ++i) {
        ASSERT_EQ(runs[i].load(), 1) << "task " << i << " of " << count << ", width " << width;
      }
    }
  }
}

TEST(WorkerPoolTest, RunsAsManyAsTheWidthAtOnceAndNoMore) {
  WorkerPool pool(7);
  for (size_t width : {2, 3, 8}) {
    std::atomic<size_t> in_flight{0}, most{0};
    std::atomic<bool> stuck{false};
    // The first `width` tasks wait until `width` are running: they finish only if the pool
    // runs that many at once.
    pool.ParallelFor(4 * width, width, [&](size_t i) {
      size_t now = in_flight.fetch_add(1) + 1;
      size_t seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      if (i < width && !WaitFor([&] { return most.load() >= width; })) stuck = true;
      in_flight.fetch_sub(1);
    });
    EXPECT_FALSE(stuck) << "width " << width << " never reached";
    EXPECT_EQ(most.load(), width);
  }
}

TEST(WorkerPoolTest, WidthOneAndNoWorkersRunOnTheCallingThread) {
  for (auto [workers, width] : {std::pair<size_t, size_t>{4, 1}, {0, 8}}) {
    WorkerPool pool(workers);
    std::set<std::thread::id> threads;
    std::mutex mu;
    pool.ParallelFor(50, width, [&](size_t) {
      std::lock_guard lock(mu);
      threads.insert(std::this_thread::get_id());
    });
    EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()})
        << workers << " workers, width " << width;
  }
}

TEST(WorkerPoolTest, NestedCallsFinishWhenEveryWorkerIsBusy) {
  WorkerPool pool(2);
  std::atomic<size_t> inner{0};
  pool.ParallelFor(6, 3,
                   [&](size_t) { pool.ParallelFor(10, 3, [&](size_t) { inner.fetch_add(1); }); });
  EXPECT_EQ(inner.load(), 60u);
}

TEST(WorkerPoolTest, ConcurrentCallersEachGetTheirOwnTasksDone) {
  WorkerPool pool(3);
  constexpr size_t kCallers = 6, kTasks = 500;
  std::vector<std::vector<std::atomic<int>>> runs(kCallers);
  for (auto& r : runs) r = std::vector<std::atomic<int>>(kTasks);
  std::vector<std::thread> callers;
  for (size_t c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < 20; ++round) {
        pool.ParallelFor(kTasks, 4, [&](size_t i) { runs[c][i].fetch_add(1); });
      }
    });
  }
  for (auto& t : callers) t.join();
  for (size_t c = 0; c < kCallers; ++c) {
    for (size_t i = 0; i < kTasks; ++i) ASSERT_EQ(runs[c][i].load(), 20) << c << "/" << i;
  }
}

// A pool destroyed right after use (its workers still picking up the entries of finished
// calls) stops cleanly; under the sanitizers this is where a dangling task would show.
TEST(WorkerPoolTest, DestroyedRightAfterUse) {
  for (int round = 0; round < 50; ++round) {
    std::atomic<size_t> ran{0};
    {
      WorkerPool pool(7);
      pool.ParallelFor(3, 8, [&](size_t) { ran.fetch_add(1); });
    }
    ASSERT_EQ(ran.load(), 3u);
  }
}

}  // namespace
}  // namespace partkv::engine
