// partkv::SyncTable (partkv/sync.h) with a real remote endpoint — `partkv serve`, and again
// Azurite: two local sites and the remote are written at random for many rounds, each site
// syncing in some rounds and offline in others, under every conflict policy; a final sync of
// each site leaves all three holding the same entities, every conflict reported. Then the same
// pair synced again costs at most two requests and changes nothing.

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "partkv/partkv.h"
#include "tests/testing/endpoint_server.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace partkv {
namespace {

const testing::ServerPrograms kPrograms{PARTKV_CLI_PATH, PARTKV_AZURITE_DIR};

using Contents = std::map<std::pair<std::string, std::string>, std::string>;

// Every entity of `t` rendered without its Timestamp and ETag.
Contents Read(const Table& t) {
  Contents out;
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

Entity Make(const std::string& pk, const std::string& rk, const std::string& w, int n) {
  Entity e(pk, rk);
  e.Set("w", Value::String(w));
  e.Set("n", Value::Int64(n));
  return e;
}

class RemoteSyncTest : public ::testing::TestWithParam<testing::EndpointKind> {
 protected:
  void SetUp() override {
    auto server = testing::SharedEndpoint(GetParam(), kPrograms);
    ASSERT_OK(server);
    auto remote = Store::Open((*server)->connection_string());
    ASSERT_OK(remote);
    remote_.emplace(std::move(*remote));
    static int tables = 0;
    remote_table_ = "Sync" + std::to_string(::getpid()) + "x" + std::to_string(++tables);
    ASSERT_OK(remote_->CreateTable(remote_table_));
    TableOptions feed;
    feed.change_feed.enabled = true;
    for (const char* site : {"a", "b"}) {
      auto s = Store::Open(dir_.Sub(site));
      ASSERT_OK(s);
      ASSERT_OK(s->CreateTable("Items", feed));
      sites_.emplace(site, std::move(*s));
    }
  }

  Table Local(const std::string& site) { return *sites_.at(site).OpenTable("Items"); }
  Table Remote() { return *remote_->OpenTable(remote_table_); }

  SyncReport Synced(const std::string& site, SyncOptions options) {
    options.on_conflict = [this](const SyncConflict&) { ++reported_; };
    auto r = SyncTable(sites_.at(site), "Items", *remote_, remote_table_, options);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return {};
    EXPECT_TRUE(r->error.ok()) << site << ": " << r->error.ToString();
    return std::move(*r);
  }

  testing::TempDir dir_;
  std::map<std::string, Store> sites_;
  std::optional<Store> remote_;
  std::string remote_table_;
  uint64_t reported_ = 0;
};

TEST_P(RemoteSyncTest, SitesThatGoOfflineConvergeWithTheRemote) {
  std::mt19937 rng(static_cast<uint32_t>(::testing::UnitTest::GetInstance()->random_seed()) +
                   static_cast<uint32_t>(GetParam()));
  std::map<std::string, Table> tables = {{"a", Local("a")}, {"b", Local("b")}, {"r", Remote()}};
  const std::vector<std::string> parties = {"a", "b", "r"};
  uint64_t conflicts = 0, writes = 0;
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 12; ++i) {
      const std::string& who = parties[rng() % parties.size()];
      Table& t = tables.at(who);
      const std::string pk = "p" + std::to_string(rng() % 4);
      const std::string rk = "r" + std::to_string(rng() % 25);
      const std::string w = who + std::to_string(++writes);
      switch (rng() % 4) {
        case 0:
        case 1:
          ASSERT_OK(t.InsertOrReplace(Make(pk, rk, w, static_cast<int>(rng() % 1000))));
          break;
        case 2: {
          Entity m(pk, rk);
          m.Set("w", Value::String(w));
          m.Set("m", Value::Boolean(true));
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
    // Each site is online in about half of the rounds.
    for (const char* site : {"a", "b"}) {
      if (rng() % 2 != 0) continue;
      SyncOptions options;
      options.direction = static_cast<SyncDirection>(rng() % 3);
      options.conflicts = static_cast<ConflictPolicy>(rng() % 4);
      options.reconcile = rng() % 3 == 0;
      conflicts += Synced(site, options).conflicts;
    }
  }
  SyncOptions last;
  last.reconcile = true;
  for (const char* site : {"a", "b", "a"}) conflicts += Synced(site, last).conflicts;
  const Contents remote = Read(tables.at("r"));
  EXPECT_FALSE(remote.empty());
  EXPECT_EQ(Read(tables.at("a")), remote);
  EXPECT_EQ(Read(tables.at("b")), remote);
  EXPECT_EQ(reported_, conflicts);

  // Nothing left to do: at most two requests (the pull's query, the reconcile's listing), no
  // write on either side.
  SyncOptions idle;
  for (const char* site : {"a", "b"}) {
    SyncReport r = Synced(site, idle);
    EXPECT_LE(r.remote_requests, 2u) << site;
    EXPECT_EQ(r.pushed + r.pushed_deletes + r.pulled + r.pulled_deletes + r.conflicts, 0u);
  }
  EXPECT_EQ(Read(tables.at("r")), remote);
}

INSTANTIATE_TEST_SUITE_P(Endpoints, RemoteSyncTest,
                         ::testing::Values(testing::EndpointKind::kPartkvServe,
                                           testing::EndpointKind::kAzurite),
                         [](const auto& info) {
                           return std::string(testing::EndpointKindName(info.param));
                         });

}  // namespace
}  // namespace partkv
