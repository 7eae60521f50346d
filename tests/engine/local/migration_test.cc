// A store written by format 1 (tests/engine/local/data/format1: the release before the shared
// column families, with its own exports of every table) opens under format 2 with every table and
// entity as it was: properties, Timestamps and key schemes kept, the ETag now the Timestamp's, the
// format-1 column families gone, and writes going on with Timestamps above every migrated one.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "engine/etag.h"
#include "engine/local/catalog.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "partkv/json.h"
#include "partkv/partkv.h"
#include "rocksdb/db.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

const std::string kFixture = std::string(PARTKV_SOURCE_DIR) + "/tests/engine/local/data/format1";

struct Expected {
  Entity entity;
  int64_t timestamp_ticks = 0;
};

// The format-1 build's export of `table`, by (PartitionKey, RowKey).
std::map<std::pair<std::string, std::string>, Expected> ExportOf(const std::string& table) {
  std::map<std::pair<std::string, std::string>, Expected> out;
  std::ifstream in(kFixture + "/" + table + ".jsonl");
  std::string line;
  while (std::getline(in, line)) {
    auto e = EntityFromJson(line);
    EXPECT_OK(e);
    if (!e.ok()) continue;
    auto ts = DateTime::Parse(nlohmann::json::parse(line)["Timestamp"].get<std::string>());
    EXPECT_OK(ts);
    out[{e->partition_key(), e->row_key()}] = Expected{*e, ts->ticks};
  }
  return out;
}

std::vector<std::string> ColumnFamilies(const std::string& path) {
  std::vector<std::string> names;
  EXPECT_TRUE(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), path, &names).ok());
  return names;
}

class MigrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string cmd = "tar xzf '" + kFixture + "/store.tar.gz' -C '" + dir_.path() + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    path_ = dir_.Sub("store");
    bool format1 = false;
    for (const auto& n : ColumnFamilies(path_)) {
      uint32_t id, index;
      format1 |= engine::ParsePartitionColumnFamilyName(n, &id, &index);
    }
    ASSERT_TRUE(format1) << "the fixture is not a format-1 store";
  }
  testing::TempDir dir_;
  std::string path_;
};

TEST_F(MigrationTest, Format1StoreOpensWithEveryTableAndEntityKept) {
  auto store = Store::Open(path_);
  ASSERT_OK(store);
  auto tables = store->ListTables();
  ASSERT_OK(tables);
  std::vector<std::string> names;
  for (const auto& t : *tables) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Devices", "Orders", "Orders2", "Single"}));
  for (const auto& info : *tables) {
    auto expected = ExportOf(info.name);
    auto table = store->OpenTable(info.name);
    ASSERT_OK(table);
    Query q;
    Page page;
    size_t seen = 0;
    do {
      ASSERT_OK(table->QueryEntities(q, &page));
      for (const Entity& e : page.entities) {
        auto it = expected.find({e.partition_key(), e.row_key()});
        ASSERT_NE(it, expected.end()) << info.name << ": unexpected " << e.DebugString();
        EXPECT_EQ(e.timestamp().ticks, it->second.timestamp_ticks) << e.DebugString();
        EXPECT_EQ(EntityToJson(e, {.metadata = JsonMetadata::kFull, .include_system = false}),
                  EntityToJson(it->second.entity,
                               {.metadata = JsonMetadata::kFull, .include_system = false}));
        // The ETag is now the Timestamp's, and it is the one that matches.
        EXPECT_EQ(e.etag(), engine::FormatEtag(static_cast<uint64_t>(e.timestamp().ticks)));
        ++seen;
      }
      q.continuation = page.continuation;
    } while (page.has_more());
    EXPECT_EQ(seen, expected.size()) << info.name;
  }
  // Key schemes and partition counts survive.
  auto devices = store->OpenTable("Devices");
  ASSERT_OK(devices);
  EXPECT_EQ(devices->info().physical_partitions, 16u);
  EXPECT_EQ(devices->info().partition_key_scheme, "hash-suffix(PartitionKey,deviceId,8,hash=xxh3)");
  EXPECT_EQ(store->OpenTable("Single")->info().physical_partitions, 1u);
}

TEST_F(MigrationTest, WritesAfterMigrationHaveLaterTimestampsAndMigratedETagsMatch) {
  auto store = Store::Open(path_);
  ASSERT_OK(store);
  auto orders = store->OpenTable("Orders");
  ASSERT_OK(orders);
  int64_t newest = 0;
  for (const auto& [key, e] : ExportOf("Orders")) newest = std::max(newest, e.timestamp_ticks);
  auto current = orders->Get("cust-1", "o1");
  ASSERT_OK(current);
  Entity e("cust-1", "o1");
  e.Set("Item", Value::String("mouse"));
  // A format-1 ETag names no version any more.
  EXPECT_THAT(orders->Replace(e, IfMatch::ETag("W/\"1\"")),
              StatusIs(Status::Code::kPreconditionFailed));
  auto written = orders->Replace(e, IfMatch::ETag(current->etag()));
  ASSERT_OK(written);
  EXPECT_GT(written->timestamp.ticks, newest);
  EXPECT_NE(written->etag, current->etag());
  // A table of format 2 sits beside the migrated ones.
  ASSERT_OK(store->CreateTable("Fresh"));
  ASSERT_OK(store->OpenTable("Fresh")->Insert(Entity("p", "r")));
  EXPECT_THAT(store->OpenTable("Dropped"), StatusIs(Status::Code::kNotFound));
}

TEST_F(MigrationTest, MigratedStoreHasNoFormat1ColumnFamiliesAndReopensAsFormat2) {
  { ASSERT_OK(Store::Open(path_)); }
  for (const auto& n : ColumnFamilies(path_)) {
    uint32_t id, index;
    EXPECT_FALSE(engine::ParsePartitionColumnFamilyName(n, &id, &index)) << n;
  }
  auto again = Store::Open(path_);
  ASSERT_OK(again);
  auto single = again->OpenTable("Single");
  ASSERT_OK(single);
  Page page;
  ASSERT_OK(single->QueryEntities(Query{}, &page));
  EXPECT_EQ(page.entities.size(), ExportOf("Single").size());
}

}  // namespace
}  // namespace partkv
