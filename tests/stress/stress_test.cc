// Concurrency stress: many threads on overlapping keys of one table, each kind of operation at
// once — ETag-guarded read-modify-write loops, contested inserts, whole-group batches, insert /
// delete churn and paged queries — with the invariants of docs/design.md "Semantics" checked at the end
// (and, where a reader can, while it runs):
//   - a counter advanced by N successful guarded updates holds exactly N (no lost update);
//   - exactly one of the racing inserts of a key wins, and the stored row is the winner's;
//   - per churned key, successful inserts minus successful deletes is 0 or 1 and says whether the
//     row exists;
//   - a batch writes one generation into every row of its group, so no query page may show two
//     generations within a group, nor a group cut short in the middle of a page (a torn batch);
//   - all of the above again after the store is reopened.
// Threads start together on a latch, contested inserts go round by round through a barrier;
// nothing waits on time. PARTKV_STRESS_SCALE multiplies the work (default 1).

#include <atomic>
#include <barrier>
#include <cstdlib>
#include <functional>
#include <latch>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "partkv/partkv.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace partkv {
namespace {

constexpr int kPartitions = 4;  // every role writes into all of p0..p3: the keys overlap
constexpr int kCounters = 2;
constexpr int kGroupsPerPartition = 5;
constexpr int kGroupRows = 20;
constexpr int kChurnKeys = 24;

int Scale() {
  const char* v = std::getenv("PARTKV_STRESS_SCALE");
  int s = v != nullptr ? std::atoi(v) : 1;
  return s > 0 ? s : 1;
}

std::string Pk(int i) { return "p" + std::to_string(i % kPartitions); }
std::string CounterRk(int c) { return "counter-" + std::to_string(c); }
std::string RaceRk(int round) { return "race-" + std::to_string(round); }
std::string ChurnRk(int k) { return "churn-" + std::to_string(k); }
// "grp-G-KK": every row of group G sorts together within its partition.
std::string GroupRk(int group, int row) {
  return "grp-" + std::to_string(group) + "-" + (row < 10 ? "0" : "") + std::to_string(row);
}
int GroupOf(const std::string& rk) { return std::stoi(rk.substr(4, rk.find('-', 4) - 4)); }

class StressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Store::Open(dir_.Sub("store"));
    ASSERT_OK(s);
    store_.emplace(std::move(*s));
    ASSERT_OK(store_->CreateTable("Stress", {.physical_partitions = 3}));
    table_.emplace(*store_->OpenTable("Stress"));
    for (int c = 0; c < kCounters; ++c) {
      Entity e(Pk(c), CounterRk(c));
      e.Set("n", Value::Int64(0));
      ASSERT_OK(table_->Insert(e));
    }
  }

  void Reopen() {
    table_.reset();
    store_.reset();
    auto s = Store::Open(dir_.Sub("store"));
    ASSERT_OK(s);
    store_.emplace(std::move(*s));
    table_.emplace(*store_->OpenTable("Stress"));
  }

  int64_t CounterValue(int c) {
    auto e = table_->Get(Pk(c), CounterRk(c));
    return e.ok() ? e->Get("n")->as_int64() : -1;
  }

  // Every group is whole (all kGroupRows rows or none) with one generation; returns the number
  // of groups present.
  int CheckGroupsWhole() {
    Query q;
    q.row_prefix = "grp-";
    std::map<std::pair<std::string, int>, std::set<int64_t>> gens;
    std::map<std::pair<std::string, int>, int> rows;
    for (;;) {
      auto page = table_->QueryEntities(q);
      EXPECT_OK(page);
      if (!page.ok()) return -1;
      for (const auto& e : page->entities) {
        auto g = std::make_pair(e.partition_key(), GroupOf(e.row_key()));
        gens[g].insert(e.Get("gen")->as_int64());
        ++rows[g];
      }
      if (!page->has_more()) break;
      q.continuation = page->continuation;
    }
    for (const auto& [g, n] : rows) {
      EXPECT_EQ(n, kGroupRows) << "group " << g.first << "/" << g.second << " is torn";
      EXPECT_EQ(gens[g].size(), 1u) << "group " << g.first << "/" << g.second << " mixes batches";
    }
    return static_cast<int>(rows.size());
  }

  testing::TempDir dir_;
  std::optional<Store> store_;
  std::optional<Table> table_;
};

TEST_F(StressTest, MixedWorkloadKeepsEveryInvariant) {
  const int scale = Scale();
  const int kCounterThreads = 4, kIncrementsPerThread = 1000 * scale;
  const int kRaceThreads = 3, kRaceRounds = 500 * scale;
  const int kBatchThreads = 2, kBatchesPerThread = 400 * scale;
  const int kChurnThreads = 2, kChurnOpsPerThread = 3000 * scale;
  const int kReaderThreads = 2;
  const int kThreads =
      kCounterThreads + kRaceThreads + kBatchThreads + kChurnThreads + kReaderThreads;

  Table& table = *table_;
  std::latch start(kThreads);
  std::atomic<int> writers_left(kThreads - kReaderThreads);
  std::vector<std::thread> threads;
  std::vector<std::string> errors;  // unexpected statuses, reported after join
  std::mutex errors_mu;
  auto unexpected = [&](const std::string& what, const Status& s) {
    std::lock_guard<std::mutex> lock(errors_mu);
    if (errors.size() < 20) errors.push_back(what + ": " + s.ToString());
  };
  auto spawn = [&](bool writer, std::function<void()> body) {
    threads.emplace_back([&, writer, body = std::move(body)] {
      start.arrive_and_wait();
      body();
      if (writer) writers_left.fetch_sub(1);
    });
  };

  // 1. ETag-guarded read-modify-write loops on shared counters (Replace and Merge alternate;
  //    every fourth update goes through a one-row batch).
  std::vector<std::atomic<int64_t>> increments(kCounters);
  std::atomic<int64_t> conflicts(0);
  for (int t = 0; t < kCounterThreads; ++t) {
    spawn(true, [&, t] {
      std::mt19937 rng(100 + t);
      for (int i = 0; i < kIncrementsPerThread; ++i) {
        int c = static_cast<int>(rng() % kCounters);
        for (;;) {
          auto cur = table.Get(Pk(c), CounterRk(c));
          if (!cur.ok()) return unexpected("counter get", cur.status());
          Entity next(Pk(c), CounterRk(c));
          next.Set("n", Value::Int64(cur->Get("n")->as_int64() + 1));
          IfMatch guard = IfMatch::ETag(cur->etag());
          // Give the other threads the processor between the read and the write, so that
          // guarded updates really do collide on a 2-core machine.
          if (rng() % 2 == 0) std::this_thread::yield();
          Status s;
          if (i % 4 == 3) {
            Batch b;
            b.Merge(next, guard);
            s = table.Submit(b).status();
          } else if (i % 2 == 0) {
            s = table.Replace(next, guard).status();
          } else {
            s = table.Merge(next, guard).status();
          }
          if (s.ok()) break;
          if (!s.IsPreconditionFailed()) return unexpected("counter update", s);
          conflicts.fetch_add(1);
        }
        increments[c].fetch_add(1);
      }
    });
  }

  // 2. Contested inserts: every race thread inserts the same key each round.
  std::barrier round_barrier(kRaceThreads);
  std::vector<std::atomic<int>> winners(kRaceRounds);
  std::vector<std::atomic<int>> winner_id(kRaceRounds);
  for (int t = 0; t < kRaceThreads; ++t) {
    spawn(true, [&, t] {
      for (int r = 0; r < kRaceRounds; ++r) {
        round_barrier.arrive_and_wait();
        Entity e(Pk(r), RaceRk(r));
        e.Set("thread", Value::Int32(t));
        auto w = table.Insert(e);
        if (w.ok()) {
          winners[r].fetch_add(1);
          winner_id[r].store(t);
        } else if (!w.status().IsAlreadyExists()) {
          unexpected("race insert", w.status());
        }
      }
    });
  }

  // 3. Whole-group batches: one generation into every row of the group, or the group deleted.
  std::atomic<int64_t> next_gen(1), batches_ok(0);
  for (int t = 0; t < kBatchThreads; ++t) {
    spawn(true, [&, t] {
      std::mt19937 rng(200 + t);
      for (int i = 0; i < kBatchesPerThread; ++i) {
        int p = static_cast<int>(rng() % kPartitions);
        int g = static_cast<int>(rng() % kGroupsPerPartition);
        int64_t gen = next_gen.fetch_add(1);
        int kind = static_cast<int>(rng() % 10);
        Batch b;
        for (int k = 0; k < kGroupRows; ++k) {
          Entity e(Pk(p), GroupRk(g, k));
          e.Set("gen", Value::Int64(gen)).Set("k", Value::Int32(k));
          if (kind < 2) {
            b.Delete(Pk(p), GroupRk(g, k), IfMatch::Any());  // NotFound when the group is absent
          } else if (kind < 4) {
            b.Insert(std::move(e));  // AlreadyExists when the group is present
          } else {
            b.InsertOrReplace(std::move(e));
          }
        }
        auto r = table.Submit(b);
        if (r.ok()) {
          batches_ok.fetch_add(1);
        } else if (!r.status().IsNotFound() && !r.status().IsAlreadyExists()) {
          unexpected("batch", r.status());
        }
      }
    });
  }

  // 4. Insert / delete churn on a small key set shared by two threads.
  std::vector<std::atomic<int>> churn_balance(kChurnKeys);
  for (int t = 0; t < kChurnThreads; ++t) {
    spawn(true, [&, t] {
      std::mt19937 rng(300 + t);
      for (int i = 0; i < kChurnOpsPerThread; ++i) {
        int k = static_cast<int>(rng() % kChurnKeys);
        int dice = static_cast<int>(rng() % 3);
        if (dice == 0) {
          Entity e(Pk(k), ChurnRk(k));
          e.Set("by", Value::Int32(t));
          auto w = table.Insert(e);
          if (w.ok()) {
            churn_balance[k].fetch_add(1);
          } else if (!w.status().IsAlreadyExists()) {
            unexpected("churn insert", w.status());
          }
        } else {
          // Unconditional, or guarded by the ETag just read (which may be stale by now).
          IfMatch m = IfMatch::Any();
          if (dice == 2) {
            auto cur = table.Get(Pk(k), ChurnRk(k));
            if (!cur.ok()) continue;
            m = IfMatch::ETag(cur->etag());
          }
          Status s = table.Delete(Pk(k), ChurnRk(k), m);
          if (s.ok()) {
            churn_balance[k].fetch_sub(1);
          } else if (!s.IsNotFound() && !s.IsPreconditionFailed()) {
            unexpected("churn delete", s);
          }
        }
      }
    });
  }

  // 5. Paged queries over the same keys while they change: no page shows a torn batch.
  std::atomic<int64_t> pages_checked(0), torn_pages(0);
  std::string first_torn;
  for (int t = 0; t < kReaderThreads; ++t) {
    spawn(false, [&, t] {
      std::mt19937 rng(400 + t);
      while (writers_left.load() > 0 || pages_checked.load() < 50) {
        Query q;
        q.page_size = 5 + rng() % 60;
        q.descending = rng() % 2 == 0;
        if (rng() % 2 == 0) q.partition_key = Pk(static_cast<int>(rng() % kPartitions));
        for (int pages = 0; pages < 20; ++pages) {
          auto page = table.QueryEntities(q);
          if (!page.ok()) return unexpected("query", page.status());
          // Runs of one group in page order: every run but the first and last must be whole,
          // and every run has one generation.
          std::vector<std::pair<std::string, int>> run_keys;
          std::vector<std::set<int64_t>> run_gens;
          std::vector<int> run_sizes;
          for (const auto& e : page->entities) {
            if (e.row_key().rfind("grp-", 0) != 0) continue;
            auto g = std::make_pair(e.partition_key(), GroupOf(e.row_key()));
            if (run_keys.empty() || run_keys.back() != g) {
              run_keys.push_back(g);
              run_gens.emplace_back();
              run_sizes.push_back(0);
            }
            run_gens.back().insert(e.Get("gen")->as_int64());
            ++run_sizes.back();
          }
          for (size_t i = 0; i < run_keys.size(); ++i) {
            bool interior = i > 0 && i + 1 < run_keys.size();
            if (run_gens[i].size() != 1 || (interior && run_sizes[i] != kGroupRows)) {
              if (torn_pages.fetch_add(1) == 0) {
                std::lock_guard<std::mutex> lock(errors_mu);
                first_torn = run_keys[i].first + "/grp-" + std::to_string(run_keys[i].second) +
                             ": " + std::to_string(run_sizes[i]) + " rows, " +
                             std::to_string(run_gens[i].size()) + " generations";
              }
            }
          }
          pages_checked.fetch_add(1);
          if (!page->has_more()) break;
          q.continuation = page->continuation;
        }
      }
    });
  }

  for (auto& th : threads) th.join();
  for (const auto& e : errors) ADD_FAILURE() << "unexpected status: " << e;

  int64_t total = 0;
  for (int c = 0; c < kCounters; ++c) {
    EXPECT_EQ(CounterValue(c), increments[c].load()) << "counter " << c << " lost updates";
    total += increments[c].load();
  }
  EXPECT_EQ(total, int64_t{kCounterThreads} * kIncrementsPerThread);

  for (int r = 0; r < kRaceRounds; ++r) {
    ASSERT_EQ(winners[r].load(), 1) << "round " << r;
    auto e = table.Get(Pk(r), RaceRk(r));
    ASSERT_OK(e);
    EXPECT_EQ(e->Get("thread")->as_int32(), winner_id[r].load()) << "round " << r;
  }

  for (int k = 0; k < kChurnKeys; ++k) {
    int balance = churn_balance[k].load();
    EXPECT_TRUE(balance == 0 || balance == 1) << "churn key " << k << ": balance " << balance;
    EXPECT_EQ(table.Get(Pk(k), ChurnRk(k)).ok(), balance == 1) << "churn key " << k;
  }

  EXPECT_EQ(torn_pages.load(), 0) << "first torn page: " << first_torn;
  EXPECT_GE(pages_checked.load(), 50);
  EXPECT_GT(batches_ok.load(), 0);
  int groups = CheckGroupsWhole();

  // The same invariants hold after a restart.
  ASSERT_NO_FATAL_FAILURE(Reopen());
  for (int c = 0; c < kCounters; ++c) EXPECT_EQ(CounterValue(c), increments[c].load());
  EXPECT_EQ(CheckGroupsWhole(), groups);

  std::printf("[stress] %lld guarded updates (%lld ETag conflicts retried), %d contested "
              "inserts with one winner each, %lld batches applied, %lld pages checked, 0 torn\n",
              static_cast<long long>(total), static_cast<long long>(conflicts.load()),
              kRaceRounds, static_cast<long long>(batches_ok.load()),
              static_cast<long long>(pages_checked.load()));
}

}  // namespace
}  // namespace partkv
