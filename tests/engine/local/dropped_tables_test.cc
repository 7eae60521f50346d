// A dropped table's keys leave the shared column families without range tombstones: the whole
// files of its range at once, the rest as flushes and compactions pass
// (engine/local/dropped_tables.h), also after a reopen; no other table loses a key.

#include "engine/local/dropped_tables.h"

#include <memory>
#include <string>

#include "api/front/front_access.h"
#include "engine/local/catalog.h"
#include "engine/local/cursor.h"
#include "engine/local/shared_table.h"
#include "engine/local/store_state.h"
#include "engine/local/table_handle.h"
#include "gtest/gtest.h"
#include "partkv/partkv.h"
#include "rocksdb/db.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace partkv::engine {
namespace {

using ::partkv::testing::StatusIs;

// Keys stored under table `id`'s prefix in every column family of tables, and range tombstones
// seen.
struct Census {
  uint64_t keys = 0;
  uint64_t range_deletions = 0;
};

Census CensusOf(const Store& store, uint32_t id) {
  Census c;
  rocksdb::DB* db = FrontAccess::Of(store).db();
  const std::string begin = TablePrefix(id), end = TablePrefix(id + 1);
  for (auto* cf : FrontAccess::Of(store).table_column_families()) {
    rocksdb::ReadOptions ro;
    const rocksdb::Slice lower(begin), upper(end);
    ro.iterate_lower_bound = &lower;
    ro.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, cf));
    for (it->Seek(lower); it->Valid(); it->Next()) ++c.keys;
    uint64_t v = 0;
    if (db->GetIntProperty(cf, "rocksdb.num-range-deletes-active-mem", &v)) c.range_deletions += v;
    if (db->GetIntProperty(cf, "rocksdb.num-range-deletes-imm-mem-tables", &v))
      c.range_deletions += v;
  }
  return c;
}

void Fill(Table& t, int n) {
  for (int i = 0; i < n; ++i) {
    Entity e("pk-" + std::to_string(i % 37), "rk-" + std::to_string(i));
    e.Set("v", Value::Int32(i)).Set("s", Value::String(std::string(100, 'x')));
    ASSERT_OK(t.InsertOrReplace(e));
  }
}

TEST(DroppedTablesTest, KeysOfADroppedTableLeaveWithoutTombstonesAndOthersStay) {
  testing::TempDir dir;
  auto store = Store::Open(dir.Sub("s"));
  ASSERT_OK(store);
  ASSERT_OK(store->CreateTable("Gone"));
  ASSERT_OK(store->CreateTable("Kept"));
  auto gone = *store->OpenTable("Gone");
  auto kept = *store->OpenTable("Kept");
  Fill(gone, 3000);
  ASSERT_OK(store->Flush());  // some of it in SST files,
  Fill(gone, 500);            // some (rewritten) still in memtables
  Fill(kept, 2000);
  const uint32_t gone_id = gone.info().id, kept_id = kept.info().id;
  ASSERT_EQ(CensusOf(*store, gone_id).keys, 3000u);  // 500 overwrote nothing: same keys

  ASSERT_OK(store->DropTable("Gone"));
  EXPECT_EQ(CensusOf(*store, gone_id).range_deletions, 0u);
  // Flushes and a full compaction leave the dropped table's keys out.
  ASSERT_OK(store->Flush());
  for (auto* cf : FrontAccess::Of(*store).table_column_families()) {
    ASSERT_TRUE(FrontAccess::Of(*store)
                    .db()
                    ->CompactRange(rocksdb::CompactRangeOptions(), cf, nullptr, nullptr)
                    .ok());
  }
  EXPECT_EQ(CensusOf(*store, gone_id).keys, 0u);
  EXPECT_EQ(CensusOf(*store, kept_id).keys, 2000u);
  // A table of the same name is a new id: empty.
  ASSERT_OK(store->CreateTable("Gone"));
  Page page;
  ASSERT_OK(store->OpenTable("Gone")->QueryEntities(Query{}, &page));
  EXPECT_TRUE(page.entities.empty());
}

TEST(DroppedTablesTest, DroppedIdsSurviveReopenAndStillFilter) {
  testing::TempDir dir;
  uint32_t id = 0;
  {
    auto store = Store::Open(dir.Sub("s"));
    ASSERT_OK(store);
    ASSERT_OK(store->CreateTable("Gone"));
    auto gone = *store->OpenTable("Gone");
    id = gone.info().id;
    Fill(gone, 1000);
    ASSERT_OK(store->DropTable("Gone"));
  }  // closed before any flush ran the filter: the keys are in the log and memtables
  auto store = Store::Open(dir.Sub("s"));
  ASSERT_OK(store);
  EXPECT_THAT(store->OpenTable("Gone"), StatusIs(Status::Code::kNotFound));
  ASSERT_OK(store->Flush());
  for (auto* cf : FrontAccess::Of(*store).table_column_families()) {
    ASSERT_TRUE(FrontAccess::Of(*store)
                    .db()
                    ->CompactRange(rocksdb::CompactRangeOptions(), cf, nullptr, nullptr)
                    .ok());
  }
  EXPECT_EQ(CensusOf(*store, id).keys, 0u);
}

TEST(DroppedTablesTest, IdsAreKeptSortedAndFound) {
  DroppedTables d;
  for (uint32_t id : {9u, 3u, 7u, 1u}) d.Add(id);
  EXPECT_EQ(*d.Ids(), (std::vector<uint32_t>{1, 3, 7, 9}));
  EXPECT_TRUE(d.Contains(7));
  EXPECT_FALSE(d.Contains(8));
}

}  // namespace
}  // namespace partkv::engine
