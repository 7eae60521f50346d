// `partkv sync` (tools/cli/sync_command.cc, partkv/sync.h) killed with SIGKILL at random points,
// two local sites syncing table Items with one remote, `partkv serve`.
//
// Each site is a local store whose table Items keeps a change feed. For a number of rounds the
// test makes random writes (InsertOrReplace, InsertOrMerge, Delete) on one or both sites, opened
// in-process and closed again, and on the remote table directly; each upsert carries a property
// "w" naming the write ("a17": site a's 17th write; "r3": the remote's third). Then it runs
//   partkv --store SITE sync Items --remote CONN --conflicts report --reconcile --json
// for a random site, killed at a random delay from the child's start (drawn up to the longest
// uninterrupted run seen, the first one measured unkilled) or left to finish — a run left alone
// must exit 0. At the end, syncs of a, b and a again, none killed, each exit 0. Then:
//   (a) the three tables hold the same entities (Timestamp and ETag aside);
//   (b) no acknowledged write was lost silently: for each key and each party (a, b, the remote)
//       whose last write to the key was an upsert, that upsert is the final value (its "w"), or
//       it was set aside in that site's ItemsConflicts (docs/sync.md "Conflicts", policy
//       report), or another party wrote the key after it in the test's order (which may
//       legitimately have replaced it).
// The seed is printed; PARTKV_SYNC_CRASH_SEED replays it, PARTKV_SYNC_CRASH_CYCLES sets the rounds
// (default 12; 6 in a sanitizer build).

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "partkv/partkv.h"
#include "tests/testing/endpoint_server.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/tools/copy/copy_test_support.h"
#include "tests/tools/sync/sync_test_support.h"

namespace partkv {
namespace {

using testing::EntityMap;
using testing::KilledRun;
using testing::KillPlan;

#ifndef PARTKV_SYNC_CRASH_DEFAULT_CYCLES
#define PARTKV_SYNC_CRASH_DEFAULT_CYCLES 12
#endif

constexpr const char* kTable = "Items";
constexpr const char* kConflicts = "ItemsConflicts";
constexpr int kPartitionKeys = 6;
constexpr int kRowsPerPartition = 40;  // 240 keys
constexpr int kKeys = kPartitionKeys * kRowsPerPartition;
constexpr int kInitialRows = 200;  // site a's first writes: the first sync is a seed of these
constexpr int kSiteWrites = 60;    // per site written, per round
constexpr int kRemoteWrites = 20;  // per round

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

std::string Pk(int key) { return "p" + std::to_string(key / kRowsPerPartition); }
std::string Rk(int key) {
  char rk[16];
  std::snprintf(rk, sizeof rk, "r%03d", key % kRowsPerPartition);
  return rk;
}

enum Party { kSiteA = 0, kSiteB = 1, kRemote = 2 };
const char* const kPartyLetter[] = {"a", "b", "r"};
const char* const kPartyName[] = {"site a", "site b", "remote"};

// One write the test made, in the test's order (seq).
struct Write {
  int seq = 0;
  Party party = kSiteA;
  int key = 0;
  bool upsert = true;  // else a delete
  std::string w;       // the upsert's "w"
};

class SyncCrashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    site_dir_[kSiteA] = dir_.Sub("site-a");
    site_dir_[kSiteB] = dir_.Sub("site-b");
    for (int s : {kSiteA, kSiteB}) {
      auto store = Store::Open(site_dir_[s], StoreOptions{});
      ASSERT_OK(store);
      TableOptions options;
      options.physical_partitions = 4;
      options.change_feed.enabled = true;
      ASSERT_OK(store->CreateTable(kTable, options));
    }
    auto serve = testing::PartkvServe::Start(PARTKV_CLI_PATH);
    ASSERT_OK(serve);
    serve_ = std::move(*serve);
    remote_location_ = serve_->connection_string();
    auto remote = Store::Open(remote_location_);
    ASSERT_OK(remote);
    remote_ = std::make_unique<Store>(std::move(*remote));
    ASSERT_OK(remote_->CreateTable(kTable));
  }

  // `count` random writes by `party` on `table`; each logged.
  void RandomWrites(Table& table, Party party, int count) {
    for (int i = 0; i < count; ++i) {
      const int key = static_cast<int>(Uniform(0, kKeys - 1));
      const int64_t kind = Uniform(0, 99);
      if (kind < 20) {
        Status s = table.Delete(Pk(key), Rk(key), IfMatch::Any());
        if (s.IsNotFound()) continue;  // nothing there: nothing written
        ASSERT_OK(s) << kPartyName[party];
        Log(party, key, false, "");
        continue;
      }
      const std::string w = kPartyLetter[party] + std::to_string(++written_[party]);
      Entity e(Pk(key), Rk(key));
      e.Set("w", Value::String(w));
      if (kind < 60) {
        e.Set("n", Value::Int32(static_cast<int32_t>(Uniform(0, 1 << 20))));
        e.Set("text", Value::String("replaced by " + w));
        ASSERT_OK(table.InsertOrReplace(e)) << kPartyName[party];
      } else {
        e.Set("m" + std::to_string(Uniform(0, 3)), Value::String("merged by " + w));
        ASSERT_OK(table.InsertOrMerge(e)) << kPartyName[party];
      }
      Log(party, key, true, w);
    }
  }

  void WriteSite(Party site, int count, bool initial = false) {
    auto store = Store::Open(site_dir_[site], StoreOptions{});
    ASSERT_OK(store);
    auto table = store->OpenTable(kTable);
    ASSERT_OK(table);
    if (initial) {
      for (int key = 0; key < count; ++key) {
        const std::string w = kPartyLetter[site] + std::to_string(++written_[site]);
        Entity e(Pk(key), Rk(key));
        e.Set("w", Value::String(w));
        e.Set("n", Value::Int32(key));
        ASSERT_OK(table->InsertOrReplace(e));
        Log(site, key, true, w);
      }
      return;
    }
    RandomWrites(*table, site, count);
  }

  void WriteRemote(int count) {
    auto table = remote_->OpenTable(kTable);
    ASSERT_OK(table);
    RandomWrites(*table, kRemote, count);
  }

  KilledRun Sync(Party site, const KillPlan& plan) {
    const std::vector<std::string> args = {"--store",     site_dir_[site],  "sync",        kTable,
                                           "--remote",    remote_location_, "--conflicts", "report",
                                           "--reconcile", "--json"};
    // No checkpoint file: the watch on the test's directory sees nothing named so.
    return testing::RunKillable(args, dir_.path(), dir_.Sub("no-checkpoint"), plan);
  }

  int64_t Uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }

  void Log(Party party, int key, bool upsert, std::string w) {
    log_.push_back(Write{static_cast<int>(log_.size()), party, key, upsert, std::move(w)});
  }

  testing::TempDir dir_;
  std::string site_dir_[2];
  std::unique_ptr<testing::PartkvServe> serve_;
  std::string remote_location_;
  std::unique_ptr<Store> remote_;
  std::mt19937_64 rng_;
  int written_[3] = {0, 0, 0};
  std::vector<Write> log_;
};

TEST_F(SyncCrashTest, KilledSyncsOfTwoSitesConvergeAndLoseNoWrite) {
  const uint64_t seed = EnvOr("PARTKV_SYNC_CRASH_SEED", std::random_device{}());
  const int rounds =
      static_cast<int>(EnvOr("PARTKV_SYNC_CRASH_CYCLES", PARTKV_SYNC_CRASH_DEFAULT_CYCLES));
  std::printf("[sync crash] seed %llu (PARTKV_SYNC_CRASH_SEED replays it), %d rounds\n",
              static_cast<unsigned long long>(seed), rounds);
  SCOPED_TRACE("PARTKV_SYNC_CRASH_SEED=" + std::to_string(seed));
  rng_.seed(seed);

  struct Totals {
    int kills = 0;
    int finished = 0;  // runs left to finish, or that finished before the kill
    uint64_t conflicts = 0, set_aside = 0, adopted = 0, pushed = 0, pulled = 0;
  } totals;
  auto count = [&](const KilledRun& run) {
    ++totals.finished;
    try {
      const nlohmann::json j = nlohmann::json::parse(run.out);
      EXPECT_TRUE(j.value("ok", false)) << j.dump();
      totals.conflicts += j.value("conflicts", uint64_t{0});
      totals.set_aside += j.value("set_aside", uint64_t{0});
      totals.adopted += j.value("adopted", uint64_t{0});
      totals.pushed += j.value("pushed", uint64_t{0}) + j.value("pushed_deletes", uint64_t{0});
      totals.pulled += j.value("pulled", uint64_t{0}) + j.value("pulled_deletes", uint64_t{0});
    } catch (const nlohmann::json::exception& e) {
      ADD_FAILURE() << "not a JSON report (" << e.what() << "): " << run.out;
    }
  };

  // Round 0: site a's first rows, a sync left to finish: the length of an uninterrupted run.
  ASSERT_NO_FATAL_FAILURE(WriteSite(kSiteA, kInitialRows, /*initial=*/true));
  std::chrono::microseconds full_run{0};
  {
    const KilledRun run = Sync(kSiteA, {});
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    count(run);
    full_run = run.elapsed;
    std::printf("[sync crash] uninterrupted first sync: %lld us\n",
                static_cast<long long>(full_run.count()));
  }

  for (int round = 1; round <= rounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const Party site = Uniform(0, 1) == 0 ? kSiteA : kSiteB;
    const Party other = site == kSiteA ? kSiteB : kSiteA;
    ASSERT_NO_FATAL_FAILURE(WriteSite(site, kSiteWrites));
    if (Uniform(0, 1) == 0) ASSERT_NO_FATAL_FAILURE(WriteSite(other, kSiteWrites / 2));
    ASSERT_NO_FATAL_FAILURE(WriteRemote(kRemoteWrites));
    KillPlan plan;
    const bool kill = Uniform(0, 3) != 0;  // three in four
    if (kill) plan.delay = std::chrono::microseconds(Uniform(0, full_run.count()));
    const KilledRun run = Sync(site, plan);
    if (run.killed) {
      ++totals.kills;
      continue;
    }
    ASSERT_EQ(run.exit_code, 0) << kPartyName[site] << ": " << run.err << run.out;
    count(run);
    if (!kill) full_run = std::max(full_run, run.elapsed);
  }

  // Final syncs, none killed: a, b, a.
  for (Party site : {kSiteA, kSiteB, kSiteA}) {
    const KilledRun run = Sync(site, {});
    ASSERT_EQ(run.exit_code, 0) << "final sync of " << kPartyName[site] << ": " << run.err
                                << run.out;
    count(run);
  }

  // (a) The three tables hold the same entities.
  EntityMap final_remote, final_site[2], conflicts[2];
  {
    auto r = testing::ReadAll(*remote_, kTable);
    ASSERT_OK(r);
    final_remote = std::move(*r);
  }
  for (int s : {kSiteA, kSiteB}) {
    auto store = Store::Open(site_dir_[s], StoreOptions{});
    ASSERT_OK(store);
    auto items = testing::ReadAll(*store, kTable);
    ASSERT_OK(items);
    final_site[s] = std::move(*items);
    auto kept = testing::ReadAll(*store, kConflicts);
    ASSERT_OK(kept);
    conflicts[s] = std::move(*kept);
  }
  EXPECT_EQ(testing::Differences(final_site[kSiteA], "site a", final_remote, "remote"), "");
  EXPECT_EQ(testing::Differences(final_site[kSiteB], "site b", final_remote, "remote"), "");

  // (b) No write lost silently.
  std::set<std::string> set_aside[2];
  for (int s : {kSiteA, kSiteB}) {
    for (const auto& [key, e] : conflicts[s]) {
      const Value* w = e.Get("w");
      if (w != nullptr && w->type() == Type::kString)
        set_aside[s].insert(std::string(w->as_string()));
    }
  }
  std::map<int, std::vector<const Write*>> by_key;
  for (const Write& w : log_) by_key[w.key].push_back(&w);
  int checked = 0, final_values = 0, kept_aside = 0, replaced_later = 0;
  std::string lost;
  for (const auto& [key, writes] : by_key) {
    auto it = final_remote.find({Pk(key), Rk(key)});
    std::string final_w;
    if (it != final_remote.end()) {
      const Value* w = it->second.Get("w");
      if (w != nullptr && w->type() == Type::kString) final_w = std::string(w->as_string());
    }
    for (Party party : {kSiteA, kSiteB, kRemote}) {
      const Write* last = nullptr;
      for (const Write* w : writes) {
        if (w->party == party) last = w;
      }
      if (last == nullptr || !last->upsert) continue;
      ++checked;
      if (last->w == final_w) {
        ++final_values;
      } else if (party != kRemote && set_aside[party].contains(last->w)) {
        ++kept_aside;
      } else if (writes.back()->seq > last->seq) {  // another party wrote the key later
        ++replaced_later;
      } else {
        lost += "(" + Pk(key) + "," + Rk(key) + "): " + kPartyName[party] + "'s write " + last->w +
                " is gone (final \"" + final_w + "\", no later write)\n";
      }
    }
  }
  EXPECT_EQ(lost, "");

  std::printf(
      "[sync crash] seed %llu: %d runs killed, %d finished; %llu pushed, %llu pulled, %llu "
      "adopted, %llu conflicts (%llu set aside); %zu entities, %zu + %zu set aside in "
      "ItemsConflicts; %d last upserts checked: %d final, %d set aside, %d written over later\n",
      static_cast<unsigned long long>(seed), totals.kills, totals.finished,
      static_cast<unsigned long long>(totals.pushed),
      static_cast<unsigned long long>(totals.pulled),
      static_cast<unsigned long long>(totals.adopted),
      static_cast<unsigned long long>(totals.conflicts),
      static_cast<unsigned long long>(totals.set_aside), final_remote.size(),
      conflicts[kSiteA].size(), conflicts[kSiteB].size(), checked, final_values, kept_aside,
      replaced_later);
  // The kills landed: at least a third of the rounds were killed.
  EXPECT_GE(totals.kills, rounds / 3);
}

}  // namespace
}  // namespace partkv
