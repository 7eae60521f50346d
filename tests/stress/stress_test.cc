// Concurrency stress: many threads on overlapping keys of one table, each kind of operation at
// once — ETag-guarded read-modify-write loops, contested inserts, whole-group batches, insert /
// delete churn and paged queries — with the invariants of docs/design.md "Semantics" checked at the
// end (and, where a reader can, while it runs):
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
#include <mutex>
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

// The threads of each role. The work each does is in Work.
constexpr int kCounterThreads = 4, kRaceThreads = 3, kBatchThreads = 2, kChurnThreads = 2;
constexpr int kReaderThreads = 2;
constexpr int kThreads =
    kCounterThreads + kRaceThreads + kBatchThreads + kChurnThreads + kReaderThreads;

// The work of each role's threads, PARTKV_STRESS_SCALE times the default.
struct Work {
  explicit Work(int scale)
      : increments_per_thread(1000 * scale),
        race_rounds(500 * scale),
        batches_per_thread(400 * scale),
        churn_ops_per_thread(3000 * scale) {}
  const int increments_per_thread, race_rounds, batches_per_thread, churn_ops_per_thread;
};

// The workload's threads: they start together on a latch; the readers go on while a writer
// runs. Unexpected statuses are kept and reported after the threads join.
class Crew {
 public:
  Crew() : start_(kThreads), writers_left_(kThreads - kReaderThreads) {}

  void Spawn(bool writer, std::function<void()> body) {
    threads_.emplace_back([this, writer, body = std::move(body)] {
      start_.arrive_and_wait();
      body();
      if (writer) writers_left_.fetch_sub(1);
    });
  }
  void Unexpected(const std::string& what, const Status& s) {
    std::lock_guard<std::mutex> lock(errors_mu_);
    if (errors_.size() < 20) errors_.push_back(what + ": " + s.ToString());
  }
  int writers_left() const { return writers_left_.load(); }
  std::mutex& errors_mu() { return errors_mu_; }

  void JoinAndReport() {
    for (auto& th : threads_) th.join();
    for (const auto& e : errors_) ADD_FAILURE() << "unexpected status: " << e;
  }

 private:
  std::latch start_;
  std::atomic<int> writers_left_;
  std::vector<std::thread> threads_;
  std::vector<std::string> errors_;  // unexpected statuses, reported after join
  std::mutex errors_mu_;
};

// What the threads count while they run, for the invariants checked after they join.
struct Tally {
  explicit Tally(const Work& work)
      : increments(kCounters),
        round_barrier(kRaceThreads),
        winners(work.race_rounds),
        winner_id(work.race_rounds),
        churn_balance(kChurnKeys) {}
  std::vector<std::atomic<int64_t>> increments;
  std::atomic<int64_t> conflicts{0};
  std::barrier<> round_barrier;
  std::vector<std::atomic<int>> winners;
  std::vector<std::atomic<int>> winner_id;
  std::atomic<int64_t> next_gen{1}, batches_ok{0};
  std::vector<std::atomic<int>> churn_balance;
  std::atomic<int64_t> pages_checked{0}, torn_pages{0};
  std::string first_torn;  // under the crew's errors_mu
};

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

  // Each counter holds exactly its successful updates (no lost update). Their total.
  int64_t CheckCounters(const Tally& tally) {
    int64_t total = 0;
    for (int c = 0; c < kCounters; ++c) {
      EXPECT_EQ(CounterValue(c), tally.increments[c].load()) << "counter " << c << " lost updates";
      total += tally.increments[c].load();
    }
    return total;
  }

  // Each round of racing inserts has one winner, whose row is stored.
  void CheckRaces(const Work& work, const Tally& tally) {
    for (int r = 0; r < work.race_rounds; ++r) {
      ASSERT_EQ(tally.winners[r].load(), 1) << "round " << r;
      auto e = table_->Get(Pk(r), RaceRk(r));
      ASSERT_OK(e);
      EXPECT_EQ(e->Get("thread")->as_int32(), tally.winner_id[r].load()) << "round " << r;
    }
  }

  // Per churned key, inserts minus deletes is 0 or 1 and says whether the row exists.
  void CheckChurn(const Tally& tally) {
    for (int k = 0; k < kChurnKeys; ++k) {
      int balance = tally.churn_balance[k].load();
      EXPECT_TRUE(balance == 0 || balance == 1) << "churn key " << k << ": balance " << balance;
      EXPECT_EQ(table_->Get(Pk(k), ChurnRk(k)).ok(), balance == 1) << "churn key " << k;
    }
  }

  testing::TempDir dir_;
  std::optional<Store> store_;
  std::optional<Table> table_;
};

// 1. ETag-guarded read-modify-write loops on shared counters (Replace and Merge alternate;
//    every fourth update goes through a one-row batch).
void SpawnCounterUpdaters(Table& table, const Work& work, Crew& crew, Tally& tally) {
  for (int t = 0; t < kCounterThreads; ++t) {
    crew.Spawn(true, [&, t] {
      std::mt19937 rng(100 + t);
      for (int i = 0; i < work.increments_per_thread; ++i) {
        int c = static_cast<int>(rng() % kCounters);
        for (;;) {
          auto cur = table.Get(Pk(c), CounterRk(c));
          if (!cur.ok()) return crew.Unexpected("counter get", cur.status());
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
          if (!s.IsPreconditionFailed()) return crew.Unexpected("counter update", s);
          tally.conflicts.fetch_add(1);
        }
        tally.increments[c].fetch_add(1);
      }
    });
  }
}

// 2. Contested inserts: every race thread inserts the same key each round.
void SpawnRacers(Table& table, const Work& work, Crew& crew, Tally& tally) {
  for (int t = 0; t < kRaceThreads; ++t) {
    crew.Spawn(true, [&, t] {
      for (int r = 0; r < work.race_rounds; ++r) {
        tally.round_barrier.arrive_and_wait();
        Entity e(Pk(r), RaceRk(r));
        e.Set("thread", Value::Int32(t));
        auto w = table.Insert(e);
        if (w.ok()) {
          tally.winners[r].fetch_add(1);
          tally.winner_id[r].store(t);
        } else if (!w.status().IsAlreadyExists()) {
          crew.Unexpected("race insert", w.status());
        }
      }
    });
  }
}

// 3. Whole-group batches: one generation into every row of the group, or the group deleted.
void SpawnBatchers(Table& table, const Work& work, Crew& crew, Tally& tally) {
  for (int t = 0; t < kBatchThreads; ++t) {
    crew.Spawn(true, [&, t] {
      std::mt19937 rng(200 + t);
      for (int i = 0; i < work.batches_per_thread; ++i) {
        int p = static_cast<int>(rng() % kPartitions);
        int g = static_cast<int>(rng() % kGroupsPerPartition);
        int64_t gen = tally.next_gen.fetch_add(1);
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
          tally.batches_ok.fetch_add(1);
        } else if (!r.status().IsNotFound() && !r.status().IsAlreadyExists()) {
          crew.Unexpected("batch", r.status());
        }
      }
    });
  }
}

// 4. Insert / delete churn on a small key set shared by two threads.
void SpawnChurners(Table& table, const Work& work, Crew& crew, Tally& tally) {
  for (int t = 0; t < kChurnThreads; ++t) {
    crew.Spawn(true, [&, t] {
      std::mt19937 rng(300 + t);
      for (int i = 0; i < work.churn_ops_per_thread; ++i) {
        int k = static_cast<int>(rng() % kChurnKeys);
        int dice = static_cast<int>(rng() % 3);
        if (dice == 0) {
          Entity e(Pk(k), ChurnRk(k));
          e.Set("by", Value::Int32(t));
          auto w = table.Insert(e);
          if (w.ok()) {
            tally.churn_balance[k].fetch_add(1);
          } else if (!w.status().IsAlreadyExists()) {
            crew.Unexpected("churn insert", w.status());
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
            tally.churn_balance[k].fetch_sub(1);
          } else if (!s.IsNotFound() && !s.IsPreconditionFailed()) {
            crew.Unexpected("churn delete", s);
          }
        }
      }
    });
  }
}

// Counts `page` in `tally`, and as torn when a run of one group in page order mixes
// generations or, but for the first and last run, is not whole.
void CheckPage(const Page& page, Crew& crew, Tally& tally) {
  // Runs of one group in page order: every run but the first and last must be whole,
  // and every run has one generation.
  std::vector<std::pair<std::string, int>> run_keys;
  std::vector<std::set<int64_t>> run_gens;
  std::vector<int> run_sizes;
  for (const auto& e : page.entities) {
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
      if (tally.torn_pages.fetch_add(1) == 0) {
        std::lock_guard<std::mutex> lock(crew.errors_mu());
        tally.first_torn = run_keys[i].first + "/grp-" + std::to_string(run_keys[i].second) + ": " +
                           std::to_string(run_sizes[i]) + " rows, " +
                           std::to_string(run_gens[i].size()) + " generations";
      }
    }
  }
  tally.pages_checked.fetch_add(1);
}

// 5. Paged queries over the same keys while they change: no page shows a torn batch.
void SpawnReaders(Table& table, Crew& crew, Tally& tally) {
  for (int t = 0; t < kReaderThreads; ++t) {
    crew.Spawn(false, [&, t] {
      std::mt19937 rng(400 + t);
      while (crew.writers_left() > 0 || tally.pages_checked.load() < 50) {
        Query q;
        q.page_size = 5 + rng() % 60;
        q.descending = rng() % 2 == 0;
        if (rng() % 2 == 0) q.partition_key = Pk(static_cast<int>(rng() % kPartitions));
        for (int pages = 0; pages < 20; ++pages) {
          auto page = table.QueryEntities(q);
          if (!page.ok()) return crew.Unexpected("query", page.status());
          CheckPage(*page, crew, tally);
          if (!page->has_more()) break;
          q.continuation = page->continuation;
        }
      }
    });
  }
}

TEST_F(StressTest, MixedWorkloadKeepsEveryInvariant) {
  const Work work(Scale());
  Tally tally(work);
  Table& table = *table_;
  {
    Crew crew;
    SpawnCounterUpdaters(table, work, crew, tally);
    SpawnRacers(table, work, crew, tally);
    SpawnBatchers(table, work, crew, tally);
    SpawnChurners(table, work, crew, tally);
    SpawnReaders(table, crew, tally);
    crew.JoinAndReport();
  }

  const int64_t total = CheckCounters(tally);
  EXPECT_EQ(total, int64_t{kCounterThreads} * work.increments_per_thread);
  ASSERT_NO_FATAL_FAILURE(CheckRaces(work, tally));
  CheckChurn(tally);
  EXPECT_EQ(tally.torn_pages.load(), 0) << "first torn page: " << tally.first_torn;
  EXPECT_GE(tally.pages_checked.load(), 50);
  EXPECT_GT(tally.batches_ok.load(), 0);
  int groups = CheckGroupsWhole();

  // The same invariants hold after a restart.
  ASSERT_NO_FATAL_FAILURE(Reopen());
  for (int c = 0; c < kCounters; ++c) EXPECT_EQ(CounterValue(c), tally.increments[c].load());
  EXPECT_EQ(CheckGroupsWhole(), groups);

  std::printf(
      "[stress] %lld guarded updates (%lld ETag conflicts retried), %d contested "
      "inserts with one winner each, %lld batches applied, %lld pages checked, 0 torn\n",
      static_cast<long long>(total), static_cast<long long>(tally.conflicts.load()),
      work.race_rounds, static_cast<long long>(tally.batches_ok.load()),
      static_cast<long long>(tally.pages_checked.load()));
}

}  // namespace
}  // namespace partkv
