// partkv::SyncTable (partkv/sync.h) between local stores: two sites and a third store in the
// remote's place. Push and pull of every kind of change, a sync's own writes not sent back, a
// sync with nothing to do, each conflict policy (both sides changed, one deleted), reconcile,
// re-sending after the state was lost, the options refused, and random rounds that converge.

#include "partkv/sync.h"

#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "partkv/partkv.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;
using ::partkv::testing::TempDir;
using ::testing::HasSubstr;

Entity Make(const std::string& pk, const std::string& rk, int n) {
  Entity e(pk, rk);
  e.Set("n", Value::Int32(n));
  e.Set("text", Value::String("value " + std::to_string(n)));
  return e;
}

// Every entity of a table, by keys, as (properties' debug string).
std::map<std::pair<std::string, std::string>, std::string> Contents(const Table& t) {
  std::map<std::pair<std::string, std::string>, std::string> out;
  Query q;
  do {
    auto page = t.QueryEntities(q);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    if (!page.ok()) return out;
    for (const Entity& e : page->entities) {
      out[{e.partition_key(), e.row_key()}] = e.DebugString();
    }
    q.continuation = page->continuation;
  } while (!q.continuation.empty());
  return out;
}

class SyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"a", "b", "remote"}) {
      auto s = Store::Open(dir_.Sub(name));
      ASSERT_OK(s);
      stores_.emplace(name, std::move(*s));
    }
    TableOptions feed;
    feed.change_feed.enabled = true;
    ASSERT_OK(store("a").CreateTable("Items", feed));
    ASSERT_OK(store("b").CreateTable("Items", feed));
    ASSERT_OK(store("remote").CreateTable("Items"));
  }

  Store& store(const std::string& name) { return stores_.at(name); }
  Table table(const std::string& name) {
    auto t = store(name).OpenTable("Items");
    EXPECT_TRUE(t.ok());
    return std::move(*t);
  }

  Result<SyncReport> Sync(const std::string& site, SyncOptions options = {}) {
    options.on_conflict = [this, site](const SyncConflict& c) { seen_[site].push_back(c); };
    return SyncTable(store(site), "Items", store("remote"), "Items", options);
  }
  // A sync that must finish.
  SyncReport Synced(const std::string& site, SyncOptions options = {}) {
    auto r = Sync(site, std::move(options));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return {};
    EXPECT_TRUE(r->error.ok()) << r->error.ToString();
    return std::move(*r);
  }

  TempDir dir_;
  std::map<std::string, Store> stores_;
  std::map<std::string, std::vector<SyncConflict>> seen_;
};

TEST_F(SyncTest, EveryKindOfChangeReachesTheOtherSite) {
  Table a = table("a");
  for (int i = 0; i < 250; ++i)
    ASSERT_OK(a.Insert(Make("p" + std::to_string(i % 3), "r" + std::to_string(i), i)));
  SyncReport first = Synced("a");
  EXPECT_TRUE(first.seeded);
  EXPECT_EQ(first.pushed, 250u);
  EXPECT_EQ(Contents(table("remote")), Contents(a));

  SyncReport b_first = Synced("b");
  EXPECT_EQ(b_first.pulled, 250u);
  EXPECT_EQ(Contents(table("b")), Contents(a));

  // Replace, merge and delete at b; back to a through the remote.
  Table b = table("b");
  ASSERT_OK(b.InsertOrReplace(Make("p0", "r0", 1000)));
  Entity merge("p1", "r1");
  merge.Set("extra", Value::Boolean(true));
  ASSERT_OK(b.Merge(merge, IfMatch::Any()));
  ASSERT_OK(b.Delete("p2", "r2", IfMatch::Any()));
  ASSERT_OK(b.Insert(Make("new", "x", 7)));
  SyncReport b_second = Synced("b");
  EXPECT_EQ(b_second.pushed, 3u);
  EXPECT_EQ(b_second.pushed_deletes, 1u);
  EXPECT_EQ(b_second.conflicts, 0u);

  SyncReport a_second = Synced("a");
  EXPECT_EQ(a_second.pulled, 3u);
  EXPECT_EQ(a_second.conflicts, 0u);
  // The delete is not seen by Timestamp; reconcile finds it.
  EXPECT_EQ(a_second.pulled_deletes, 0u);
  SyncOptions reconcile;
  reconcile.reconcile = true;
  SyncReport a_third = Synced("a", reconcile);
  EXPECT_EQ(a_third.pulled_deletes, 1u);
  EXPECT_EQ(a_third.remote_keys_listed, 250u);
  EXPECT_EQ(Contents(a), Contents(b));
  EXPECT_EQ(Contents(table("remote")), Contents(b));
}

TEST_F(SyncTest, ASyncsOwnWritesAreMarkedAndNotSentBack) {
  Table remote = table("remote");
  ASSERT_OK(remote.Insert(Make("p", "r1", 1)));
  ASSERT_OK(remote.Insert(Make("p", "r2", 2)));
  SyncReport pulled = Synced("a");
  EXPECT_EQ(pulled.pulled, 2u);
  ChangesQuery q;
  q.mode = ChangeFeedMode::kAll;
  auto page = table("a").ReadChanges(q);
  ASSERT_OK(page);
  ASSERT_EQ(page->changes.size(), 2u);
  for (const Change& c : page->changes) EXPECT_EQ(c.origin, WriteOrigin::kSync);

  SyncReport again = Synced("a");
  EXPECT_EQ(again.pushed, 0u);
  EXPECT_EQ(again.push_skipped, 2u);
  EXPECT_EQ(again.pulled, 0u);
}

TEST_F(SyncTest, ASyncWithNothingToDoCostsAtMostTwoRequests) {
  Table a = table("a");
  for (int i = 0; i < 30; ++i) ASSERT_OK(a.Insert(Make("p", std::to_string(i), i)));
  Synced("a");
  Synced("a");  // reads back what it pushed, inside the overlap
  SyncReport idle = Synced("a");
  EXPECT_LE(idle.remote_requests, 2u);
  EXPECT_EQ(idle.pushed + idle.pulled + idle.conflicts, 0u);
  EXPECT_EQ(Contents(table("remote")), Contents(a));
}

// Both sides change one entity: each policy's winner, and what is reported.
class SyncConflictTest : public SyncTest, public ::testing::WithParamInterface<ConflictPolicy> {};

TEST_P(SyncConflictTest, BothSidesChangedOneEntity) {
  const ConflictPolicy policy = GetParam();
  Table a = table("a");
  Table remote = table("remote");
  ASSERT_OK(a.Insert(Make("p", "r", 1)));
  ASSERT_OK(a.Insert(Make("p", "quiet", 5)));
  Synced("a");
  ASSERT_OK(remote.InsertOrReplace(Make("p", "r", 2)));  // first: the older write
  ASSERT_OK(a.InsertOrReplace(Make("p", "r", 3)));       // later: last-writer's winner
  SyncOptions options;
  options.conflicts = policy;
  SyncReport r = Synced("a", options);
  EXPECT_EQ(r.conflicts, 1u);
  ASSERT_EQ(seen_["a"].size(), 1u);
  const SyncConflict& c = seen_["a"][0];
  EXPECT_EQ(c.partition_key, "p");
  EXPECT_EQ(c.row_key, "r");
  ASSERT_TRUE(c.local && c.remote);
  EXPECT_EQ(c.local->Get("n")->as_int32(), 3);
  EXPECT_EQ(c.remote->Get("n")->as_int32(), 2);
  const bool local_wins =
      policy == ConflictPolicy::kLocalWins || policy == ConflictPolicy::kLastWriter;
  EXPECT_EQ(c.local_won, local_wins);
  EXPECT_EQ(r.local_won, local_wins ? 1u : 0u);
  const int winner = local_wins ? 3 : 2;
  auto at_a = a.Get("p", "r");
  auto at_remote = remote.Get("p", "r");
  ASSERT_OK(at_a);
  ASSERT_OK(at_remote);
  EXPECT_EQ(at_a->Get("n")->as_int32(), winner);
  EXPECT_EQ(at_remote->Get("n")->as_int32(), winner);
  if (policy == ConflictPolicy::kReport) {
    EXPECT_TRUE(c.set_aside);
    EXPECT_EQ(r.set_aside, 1u);
    auto kept = store("a").OpenTable("ItemsConflicts");
    ASSERT_OK(kept);
    auto rows = Contents(*kept);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows.begin()->first.first, "p");
    EXPECT_THAT(rows.begin()->first.second, HasSubstr("r@"));
    EXPECT_THAT(rows.begin()->second, HasSubstr("n=3"));
  } else {
    EXPECT_FALSE(c.set_aside);
  }
  // Resolved: the next sync finds nothing to do.
  SyncReport next = Synced("a", options);
  EXPECT_EQ(next.conflicts + next.pushed + next.pulled, 0u);
  EXPECT_EQ(Contents(a), Contents(remote));
}

INSTANTIATE_TEST_SUITE_P(Policies, SyncConflictTest,
                         ::testing::Values(ConflictPolicy::kRemoteWins, ConflictPolicy::kLocalWins,
                                           ConflictPolicy::kLastWriter, ConflictPolicy::kReport),
                         [](const auto& info) {
                           std::string name = ConflictPolicyName(info.param);
                           std::erase(name, '-');
                           return name;
                         });

TEST_F(SyncTest, ALocalChangeAgainstARemoteDeleteIsAConflict) {
  Table a = table("a");
  Table remote = table("remote");
  ASSERT_OK(a.Insert(Make("p", "r", 1)));
  Synced("a");
  ASSERT_OK(remote.Delete("p", "r", IfMatch::Any()));
  ASSERT_OK(a.InsertOrReplace(Make("p", "r", 2)));
  SyncOptions options;
  options.conflicts = ConflictPolicy::kRemoteWins;
  SyncReport r = Synced("a", options);
  EXPECT_EQ(r.conflicts, 1u);
  ASSERT_EQ(seen_["a"].size(), 1u);
  EXPECT_FALSE(seen_["a"][0].remote.has_value());
  EXPECT_FALSE(seen_["a"][0].local_won);
  EXPECT_THAT(a.Get("p", "r").status(), StatusIs(Status::Code::kNotFound));

  // A local delete against a remote change, local wins: the remote loses it.
  ASSERT_OK(a.Insert(Make("p", "s", 1)));
  Synced("a", options);
  ASSERT_OK(remote.InsertOrReplace(Make("p", "s", 9)));
  ASSERT_OK(a.Delete("p", "s", IfMatch::Any()));
  options.conflicts = ConflictPolicy::kLocalWins;
  SyncReport d = Synced("a", options);
  EXPECT_EQ(d.conflicts, 1u);
  EXPECT_THAT(remote.Get("p", "s").status(), StatusIs(Status::Code::kNotFound));
}

TEST_F(SyncTest, WritesFoundInPlaceAfterLostStateAreAdoptedNotConflicts) {
  Table a = table("a");
  for (int i = 0; i < 120; ++i) ASSERT_OK(a.Insert(Make("p", std::to_string(i), i)));
  Synced("a");
  // The state is lost (as if the process died after the remote acknowledged): the next sync
  // sends everything again and finds each write's result already there.
  ASSERT_OK(store("a").DropTable("PartkvSync"));
  SyncReport again = Synced("a");
  EXPECT_TRUE(again.seeded);
  EXPECT_EQ(again.adopted, 120u);
  EXPECT_EQ(again.conflicts, 0u);
  EXPECT_EQ(again.pushed, 0u);
  EXPECT_EQ(Contents(table("remote")), Contents(a));
}

// A pull killed after its local write and before it saved the entity's shadow leaves a local
// entity the pair has no record of; once the remote deletes it, a sync with reconcile finds it
// (written before the push began, on neither the remote nor in the state) and resolves it as a
// conflict against the remote delete, so the sides converge and the local version is kept.
TEST_F(SyncTest, AnEntityWhosePullLostItsShadowIsReconciled) {
  Table remote = table("remote");
  ASSERT_OK(remote.Insert(Make("p", "orphan", 1)));
  ASSERT_OK(remote.Insert(Make("p", "kept", 2)));
  Synced("a");
  ASSERT_OK(table("a").Get("p", "orphan"));
  // The shadows go, the checkpoint stays: what a kill between the two writes leaves.
  auto state = store("a").OpenTable("PartkvSync");
  ASSERT_OK(state);
  auto rows = Contents(*state);
  int removed = 0;
  for (const auto& [keys, text] : rows) {
    if (keys.second == "checkpoint") continue;
    ASSERT_OK(state->Delete(keys.first, keys.second, IfMatch::Any()));
    ++removed;
  }
  ASSERT_EQ(removed, 2);
  ASSERT_OK(remote.Delete("p", "orphan", IfMatch::Any()));
  SyncOptions options;
  options.reconcile = true;
  SyncReport r = Synced("a", options);
  EXPECT_EQ(r.conflicts, 1u);
  EXPECT_EQ(r.set_aside, 1u);
  EXPECT_THAT(table("a").Get("p", "orphan").status(), StatusIs(Status::Code::kNotFound));
  EXPECT_EQ(Contents(table("a")), Contents(remote));
}

TEST_F(SyncTest, BadOptionsAndTablesAreRefusedBeforeAnythingIsSent) {
  SyncOptions options;
  options.max_batches_in_flight = 0;
  EXPECT_THAT(Sync("a", options).status(),
              StatusIs(Status::Code::kInvalidArgument, HasSubstr("max_batches_in_flight")));
  ASSERT_OK(store("a").CreateTable("NoFeed"));
  EXPECT_THAT(SyncTable(store("a"), "NoFeed", store("remote"), "Items").status(),
              StatusIs(Status::Code::kInvalidArgument, HasSubstr("change feed")));
  EXPECT_THAT(SyncTable(store("a"), "Items", store("remote"), "Missing").status(),
              StatusIs(Status::Code::kNotFound));
  EXPECT_EQ(ParseConflictPolicy("last-writer"), ConflictPolicy::kLastWriter);
  EXPECT_EQ(ParseConflictPolicy("newest"), std::nullopt);
}

// Random inserts, replaces, merges and deletes at both sites and the remote, synced in random
// order with random directions: after a final round every side holds the same entities.
TEST_F(SyncTest, RandomRoundsConverge) {
  std::mt19937 rng(20261207);
  std::map<std::string, Table> tables;
  for (const char* name : {"a", "b", "remote"}) tables.emplace(name, table(name));
  const std::vector<std::string> names = {"a", "b", "remote"};
  SyncOptions options;
  options.reconcile = true;
  uint64_t conflicts = 0;
  for (int round = 0; round < 30; ++round) {
    for (int w = 0; w < 20; ++w) {
      Table& t = tables.at(names[rng() % 3]);
      const std::string pk = "p" + std::to_string(rng() % 3);
      const std::string rk = std::to_string(rng() % 40);
      const int n = static_cast<int>(rng() % 1000);
      switch (rng() % 4) {
        case 0:
          (void)t.Insert(Make(pk, rk, n));
          break;
        case 1:
          ASSERT_OK(t.InsertOrReplace(Make(pk, rk, n)));
          break;
        case 2: {
          Entity m(pk, rk);
          m.Set("m", Value::Int32(n));
          ASSERT_OK(t.InsertOrMerge(m));
          break;
        }
        case 3: {
          Status s = t.Delete(pk, rk, IfMatch::Any());
          ASSERT_TRUE(s.ok() || s.IsNotFound()) << s.ToString();
          break;
        }
      }
    }
    const std::string site = rng() % 2 ? "a" : "b";
    options.direction = static_cast<SyncDirection>(rng() % 3);
    options.conflicts = static_cast<ConflictPolicy>(rng() % 4);
    conflicts += Synced(site, options).conflicts;
  }
  options.direction = SyncDirection::kBoth;
  for (const char* site : {"a", "b", "a"}) conflicts += Synced(site, options).conflicts;
  EXPECT_EQ(Contents(tables.at("a")), Contents(tables.at("remote")));
  EXPECT_EQ(Contents(tables.at("b")), Contents(tables.at("remote")));
  EXPECT_GT(Contents(tables.at("remote")).size(), 0u);
  EXPECT_EQ(seen_["a"].size() + seen_["b"].size(), conflicts);
}

}  // namespace
}  // namespace partkv
