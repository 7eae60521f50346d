// Store lifecycle: tables in the catalog, reopening, the format version, refusing what is not a
// store, and physical partitions as hash ranges.

#include "partkv/store.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <tuple>

#include "api/front/front_access.h"
#include "engine/key_codec.h"
#include "engine/local/catalog.h"
#include "engine/local/change_feed.h"
#include "engine/local/shared_table.h"
#include "engine/local/store_state.h"
#include "engine/local/table_handle.h"
#include "rocksdb/db.h"
#include "rocksdb/write_batch.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/store_fixture.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

using StoreTest = testing::StoreFixture;

// "name/physical partitions ..."; a store without physical partitions lists the names only.
std::string Names(const std::vector<TableInfo>& tables, bool physical = true) {
  std::string out;
  for (const auto& t : tables) {
    out += t.name + (physical ? "/" + std::to_string(t.physical_partitions) : "") + " ";
  }
  return out;
}

TEST_F(StoreTest, TablesAreCreatedListedAndDropped) {
  ASSERT_OK(CreateTableAnywhere("Orders", {.physical_partitions = 4}));
  EXPECT_THAT(store_->CreateTable("orders"),
              StatusIs(Status::Code::kAlreadyExists));  // names compare case-insensitively
  EXPECT_THAT(store_->CreateTable("x"), StatusIs(Status::Code::kInvalidArgument));
  EXPECT_THAT(store_->CreateTable("Big", {.physical_partitions = 0}),
              StatusIs(Status::Code::kInvalidArgument));
  EXPECT_THAT(store_->CreateTable("Big", {.physical_partitions = 1025}),
              StatusIs(Status::Code::kInvalidArgument));
  const bool physical = store_->capabilities().physical_partitions;
  EXPECT_EQ(Names(*store_->ListTables(), physical),
            physical ? "Items/16 Orders/4 " : "Items Orders ");
  EXPECT_OK(store_->OpenTable("ORDERS"));
  ASSERT_OK(store_->DropTable("orders"));
  EXPECT_THAT(store_->DropTable("orders"), StatusIs(Status::Code::kNotFound));
  EXPECT_EQ(Names(*store_->ListTables(), physical), physical ? "Items/16 " : "Items ");
  Reopen();
  EXPECT_EQ(Names(*store_->ListTables(), physical), physical ? "Items/16 " : "Items ");
}

// Get Table Service Stats: a local store is its own live copy; partkv serve and Azurite answer at
// the account's secondary location, where the remote backend asks, as Azure's SDKs do.
TEST_F(StoreTest, ServiceStatsAreLiveAndCurrentToTheSecond) {
  const auto now_micros = [] {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  const int64_t before = now_micros() / 1000000 * 1000000;
  auto stats = store_->ServiceStats();
  const int64_t after = now_micros();
  ASSERT_OK(stats);
  EXPECT_EQ(stats->geo_replication_status, "live");
  ASSERT_TRUE(stats->last_sync_time.has_value());
  const int64_t synced = stats->last_sync_time->ToUnixMicros();
  EXPECT_EQ(synced % 1000000, 0) << "Azure gives LastSyncTime to the second";
  EXPECT_GE(synced, before);
  EXPECT_LE(synced, after);
}

TEST_F(StoreTest, DroppedTableDataIsGoneWhenRecreated) {
  ASSERT_OK(table_->Insert(Make("p", "r", 1)));
  ASSERT_OK(store_->DropTable("Items"));
  ASSERT_OK(store_->CreateTable("Items"));
  OpenTable();
  EXPECT_EQ(Get("p", "r"), "NOT_FOUND");
}

TEST_F(StoreTest, ReopenFindsEveryAcknowledgedEntity) {
  for (int i = 0; i < 2000; ++i) {
    ASSERT_OK(table_->Insert(Make("p" + std::to_string(i % 37), "r" + std::to_string(i), i)));
  }
  Batch b;
  for (int i = 0; i < 100; ++i) b.Insert(Make("batch", "r" + std::to_string(i), i));
  ASSERT_OK(table_->Submit(b, {.sync = true}));
  Reopen();
  OpenTable();
  for (int i = 0; i < 2000; ++i) {
    ASSERT_EQ(Get("p" + std::to_string(i % 37), "r" + std::to_string(i)),
              "{n=" + std::to_string(i) + "}");
  }
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(Get("batch", "r" + std::to_string(i)), "{n=" + std::to_string(i) + "}");
  }
}

// Opens the store's database with RocksDB alone and calls `edit` with it and its column
// families by name, as another build of partkv would see it.
void RawEdit(
    const std::string& path,
    const std::function<void(rocksdb::DB*, std::map<std::string, rocksdb::ColumnFamilyHandle*>&)>&
        edit) {
  rocksdb::DB* raw = nullptr;
  std::vector<std::string> cfs;
  ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), path, &cfs).ok());
  std::vector<rocksdb::ColumnFamilyDescriptor> descs;
  for (auto& n : cfs) descs.emplace_back(n, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  ASSERT_TRUE(rocksdb::DB::Open(rocksdb::DBOptions(), path, descs, &handles, &raw).ok());
  std::map<std::string, rocksdb::ColumnFamilyHandle*> by_name;
  for (size_t i = 0; i < cfs.size(); ++i) by_name[cfs[i]] = handles[i];
  edit(raw, by_name);
  for (auto& [name, h] : by_name) ASSERT_TRUE(raw->DestroyColumnFamilyHandle(h).ok());
  delete raw;
}

// Rewrites the store's format key as another build would have left it.
void RewriteFormat(const std::string& path, uint32_t version) {
  RawEdit(path, [&](rocksdb::DB* db, auto& cfs) {
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), cfs[engine::kMetaColumnFamily], engine::kFormatKey,
                        std::to_string(version))
                    .ok());
  });
}

// Keys under `prefix` in column family `cf`, read raw.
size_t RawCount(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const std::string& prefix) {
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), cf));
  size_t n = 0;
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) ++n;
  return n;
}

// The store's format key and whether it has the feed column family, read raw.
std::pair<std::string, bool> RawFormat(const std::string& path) {
  std::pair<std::string, bool> out;
  RawEdit(path, [&](rocksdb::DB* db, auto& cfs) {
    EXPECT_TRUE(db->Get(rocksdb::ReadOptions(), cfs[engine::kMetaColumnFamily], engine::kFormatKey,
                        &out.first)
                    .ok());
    out.second = cfs.count(engine::kFeedColumnFamily) != 0;
  });
  return out;
}

// Makes the store as format 3 kept it: the feed entries of every table, each holding its entity,
// in the data column family of its partition 0, no version index, no feed column family, the
// format key 3.
void MakeFormatThree(const std::string& path) {
  RawEdit(path, [&](rocksdb::DB* db, auto& cfs) {
    // Every stored entity by (table id, pk, rk): what an entry by reference refers to.
    std::map<std::tuple<uint32_t, std::string, std::string>, std::string> rows;
    for (uint32_t k = 0; k < engine::kDefaultDataColumnFamilies; ++k) {
      std::unique_ptr<rocksdb::Iterator> it(
          db->NewIterator(rocksdb::ReadOptions(), cfs[engine::DataColumnFamilyName(k)]));
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        const std::string_view key = it->key().ToStringView();
        std::string pk, rk;
        ASSERT_TRUE(
            engine::DecodeEntityKey(key.substr(engine::kPartitionKeyPrefixLength), &pk, &rk).ok());
        const uint32_t id = (static_cast<uint8_t>(key[0]) << 24) |
                            (static_cast<uint8_t>(key[1]) << 16) |
                            (static_cast<uint8_t>(key[2]) << 8) | static_cast<uint8_t>(key[3]);
        rows[{id, pk, rk}] = it->value().ToString();
      }
    }
    rocksdb::ColumnFamilyHandle* feed = cfs[engine::kFeedColumnFamily];
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), feed));
    rocksdb::WriteBatch wb;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const std::string_view key = it->key().ToStringView();
      uint64_t seq = 0;
      if (!engine::ParseFeedKey(key, &seq)) continue;  // the version index is format 4's
      const uint32_t id = (static_cast<uint8_t>(key[0]) << 24) |
                          (static_cast<uint8_t>(key[1]) << 16) |
                          (static_cast<uint8_t>(key[2]) << 8) | static_cast<uint8_t>(key[3]);
      const std::string data = engine::DataColumnFamilyName(
          engine::DataColumnFamilyOf(id, 0, engine::kDefaultDataColumnFamilies));
      engine::FeedEntryView e;
      ASSERT_TRUE(engine::DecodeFeedEntry(it->value().ToStringView(), &e).ok());
      std::string entry;
      std::string value(e.value);
      if (e.by_reference()) {
        auto row = rows.find({id, std::string(e.partition_key), std::string(e.row_key)});
        ASSERT_NE(row, rows.end());
        value = row->second;
      }
      engine::AppendFeedEntry(e.origin, e.op, e.time_ticks, e.etag_version, e.partition_key,
                              e.row_key, value, {}, &entry);
      ASSERT_TRUE(wb.Put(cfs[data], it->key(), entry).ok());
    }
    ASSERT_TRUE(it->status().ok());
    it.reset();
    ASSERT_TRUE(wb.Put(cfs[engine::kMetaColumnFamily], engine::kFormatKey, "3").ok());
    ASSERT_TRUE(db->Write(rocksdb::WriteOptions(), &wb).ok());
    ASSERT_TRUE(db->DropColumnFamily(feed).ok());
  });
}

TEST_F(StoreTest, UnknownFormatVersionIsRefused) {
  PARTKV_REQUIRE_LOCAL("tests the store's on-disk format");
  table_.reset();
  store_.reset();
  ASSERT_NO_FATAL_FAILURE(RewriteFormat(dir_.Sub("store"), engine::kStoreFormatVersion + 1));
  auto s = Store::Open(dir_.Sub("store"));
  ASSERT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_NE(s.status().message().find("format version " +
                                      std::to_string(engine::kStoreFormatVersion + 1)),
            std::string_view::npos)
      << s.status().ToString();
  EXPECT_NE(s.status().message().find("reads format versions 1 to 3 (upgraded on open) and 4"),
            std::string_view::npos);
}

TEST_F(StoreTest, FormatTwoStoreIsUpgradedWithItsData) {
  PARTKV_REQUIRE_LOCAL("tests the store's on-disk format");
  ASSERT_OK(table_->Insert(Make("p", "r", 7)));
  table_.reset();
  store_.reset();
  // Format 2 had no feed column family.
  RawEdit(dir_.Sub("store"), [](rocksdb::DB* db, auto& cfs) {
    ASSERT_TRUE(db->DropColumnFamily(cfs[engine::kFeedColumnFamily]).ok());
  });
  ASSERT_NO_FATAL_FAILURE(RewriteFormat(dir_.Sub("store"), engine::kFormatVersion2));
  ASSERT_EQ(RawFormat(dir_.Sub("store")), std::make_pair(std::string("2"), false));
  Reopen();
  OpenTable();
  EXPECT_EQ(Get("p", "r"), "{n=7}");
  table_.reset();
  store_.reset();
  // The key now says 4: a build that knows no change feed refuses the store from here on.
  EXPECT_EQ(RawFormat(dir_.Sub("store")), std::make_pair(std::string("4"), true));
}

TEST_F(StoreTest, FormatThreeStoreHasItsFeedsMovedAtOpen) {
  PARTKV_REQUIRE_LOCAL("tests the store's on-disk format");
  TableOptions with_feed;
  with_feed.change_feed.enabled = true;
  ASSERT_OK(store_->CreateTable("Fed", with_feed));
  std::string prefix;
  {
    auto fed = store_->OpenTable("Fed");
    ASSERT_OK(fed);
    for (int i = 0; i < 300; ++i) ASSERT_OK(fed->Insert(Make("p", "r" + std::to_string(i), i)));
    ASSERT_OK(fed->Delete("p", "r7", IfMatch::Any()));
    prefix = engine::TablePrefix(fed->info().id);
  }
  table_.reset();
  store_.reset();
  ASSERT_NO_FATAL_FAILURE(MakeFormatThree(dir_.Sub("store")));
  ASSERT_EQ(RawFormat(dir_.Sub("store")), std::make_pair(std::string("3"), false));

  Reopen();
  {
    auto fed = store_->OpenTable("Fed");
    ASSERT_OK(fed);
    ChangesQuery q;
    q.mode = ChangeFeedMode::kAll;
    std::vector<Change> changes;
    for (;;) {
      auto page = fed->ReadChanges(q);
      ASSERT_OK(page);
      for (auto& c : page->changes) changes.push_back(std::move(c));
      q.continuation = page->continuation;
      if (page->caught_up) break;
    }
    ASSERT_EQ(changes.size(), 301u);
    EXPECT_EQ(changes[0].op, ChangeOp::kInsert);
    EXPECT_EQ(changes[0].entity.row_key(), "r0");
    ASSERT_NE(changes[5].entity.Get("n"), nullptr);  // moved with its entity
    EXPECT_EQ(changes[5].entity.Get("n")->as_int32(), 5);
    EXPECT_EQ(changes[300].op, ChangeOp::kDelete);
    EXPECT_EQ(changes[300].entity.row_key(), "r7");
    // Numbering goes on after the moved entries.
    ASSERT_OK(fed->Insert(Make("p", "new", 1)));
    auto next = fed->ReadChanges(q);
    ASSERT_OK(next);
    ASSERT_EQ(next->changes.size(), 1u);
    EXPECT_EQ(next->changes[0].seq, changes.back().seq + 1);
  }
  store_.reset();
  EXPECT_EQ(RawFormat(dir_.Sub("store")), std::make_pair(std::string("4"), true));
  // Nothing of the feed is left in the data column families (the 300 entities, "new" among them,
  // are the table's keys there); the 302 entries are in the feed's, with the version index entry
  // of "new"'s.
  RawEdit(dir_.Sub("store"), [&](rocksdb::DB* db, auto& cfs) {
    size_t data_keys = 0;
    for (uint32_t k = 0; k < engine::kDefaultDataColumnFamilies; ++k) {
      data_keys += RawCount(db, cfs[engine::DataColumnFamilyName(k)], prefix);
    }
    EXPECT_EQ(data_keys, 300u);
    EXPECT_EQ(RawCount(db, cfs[engine::kFeedColumnFamily], prefix), 303u);
  });
}

TEST_F(StoreTest, DirectoryThatIsNotAStoreIsRefusedAndUntouched) {
  PARTKV_REQUIRE_LOCAL("tests a store's directory");
  std::string dir = dir_.Sub("photos");
  std::filesystem::create_directories(dir);
  { std::ofstream(dir + "/cat.jpg") << "meow"; }
  auto s = Store::Open(dir);
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_NE(s.status().message().find("not a partkv store"), std::string_view::npos);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);

  std::string file = dir_.Sub("plain-file");
  { std::ofstream(file) << "x"; }
  EXPECT_THAT(Store::Open(file), StatusIs(Status::Code::kInvalidArgument));
  EXPECT_THAT(Store::Open(dir_.Sub("absent"), {.create_if_missing = false}),
              StatusIs(Status::Code::kNotFound));
}

TEST_F(StoreTest, PlainRocksDbIsNotAStore) {
  PARTKV_REQUIRE_LOCAL("tests a store's directory");
  rocksdb::DB* raw = nullptr;
  rocksdb::Options o;
  o.create_if_missing = true;
  ASSERT_TRUE(rocksdb::DB::Open(o, dir_.Sub("plain"), &raw).ok());
  delete raw;
  auto s = Store::Open(dir_.Sub("plain"));
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_NE(s.status().message().find("not a partkv store"), std::string_view::npos);
}

TEST_F(StoreTest, SecondOpenOfAnOpenStoreIsBusy) {
  PARTKV_REQUIRE_LOCAL("tests a store's directory lock");
  auto second = Store::Open(dir_.Sub("store"));
  EXPECT_THAT(second, StatusIs(Status::Code::kBusy));
  EXPECT_EQ(Get("p", "r"), "NOT_FOUND");  // the first handle keeps working
}

TEST_F(StoreTest, TinyMemoryBudgetRejected) {
  PARTKV_REQUIRE_LOCAL("tests the local engine's memory budget");
  auto s = Store::Open(dir_.Sub("tiny"), {.memory_budget_bytes = 1024});
  EXPECT_THAT(s, StatusIs(Status::Code::kInvalidArgument));
  EXPECT_NE(s.status().message().find("memory_budget_bytes"), std::string_view::npos);
}

TEST_F(StoreTest, TableHandleKeepsEngineAliveAfterStoreIsDestroyed) {
  Table t = *table_;
  table_.reset();
  store_.reset();
  ASSERT_OK(t.Insert(Make("p", "r", 3)));
  EXPECT_EQ(t.Get("p", "r")->Get("n")->as_int32(), 3);
}

// The nice values of this process's threads named `name` (from /proc/self/task).
std::vector<int> NiceOfThreads(const std::string& name) {
  std::vector<int> nice;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm"), stat(task.path() / "stat");
    std::string thread_name, line;
    if (!std::getline(comm, thread_name) || thread_name != name || !std::getline(stat, line))
      continue;
    // After "pid (comm) ": state is field 3 of stat(5), nice field 19.
    std::istringstream fields(line.substr(line.rfind(") ") + 2));
    std::string field;
    for (int i = 3; i <= 19 && fields >> field; ++i) {
      if (i == 19) nice.push_back(std::stoi(field));
    }
  }
  return nice;
}

TEST_F(StoreTest, LowPriorityCompactionsRunAtTheLowestCpuPriority) {
  PARTKV_REQUIRE_LOCAL("tests the local engine's compaction threads");
  auto store = Store::Open(dir_.Sub("low"), {.low_priority_compactions = true});
  ASSERT_OK(store);
  ASSERT_OK(store->CreateTable("Logs", {.physical_partitions = 1}));
  auto logs = store->OpenTable("Logs");
  ASSERT_OK(logs);
  // Five flushed files of one column family: past RocksDB's trigger of four, a compaction runs.
  for (int file = 0; file < 5; ++file) {
    for (int i = 0; i < 100; ++i) {
      ASSERT_OK(logs->Insert(Make("p", std::to_string(file * 1000 + i), i)));
    }
    ASSERT_OK(store->Flush());
  }
  ASSERT_OK(store->AwaitBackgroundWork(std::chrono::minutes(5)));
  rocksdb::DB* db = FrontAccess::Of(*store).db();
  const engine::SharedTable& data = FrontAccess::Of(*logs).data();
  std::string files;
  ASSERT_TRUE(db->GetProperty(data.partitions()[0].cf, "rocksdb.num-files-at-level0", &files));
  EXPECT_LT(std::stoi(files), 4) << "no compaction ran";
  // The thread that ran it lowered itself to nice 19 before the job; threads of the pool that
  // have run no job since keep their priority.
  std::vector<int> nice = NiceOfThreads("rocksdb:low");
  EXPECT_NE(std::find(nice.begin(), nice.end(), 19), nice.end())
      << "no compaction thread at nice 19 among " << nice.size();
}

TEST(PhysicalPartitions, EvenSplitOwnsContiguousHashRanges) {
  auto bounds = engine::EvenLowerBounds(16);
  ASSERT_EQ(bounds.size(), 16u);
  EXPECT_EQ(bounds[0], 0u);
  EXPECT_EQ(bounds[1], uint64_t{1} << 60);
  EXPECT_EQ(bounds[15], uint64_t{15} << 60);
  auto three = engine::EvenLowerBounds(3);
  // Lower bound i is ceil(i * 2^64 / n), so partition(h) == floor(h * n / 2^64).
  for (uint64_t h : {uint64_t{0}, three[1] - 1, three[1], three[2] - 1, three[2], ~uint64_t{0}}) {
    uint64_t expect = static_cast<uint64_t>((static_cast<unsigned __int128>(h) * 3) >> 64);
    size_t got = 0;
    for (size_t i = 0; i < 3; ++i) {
      if (h >= three[i]) got = i;
    }
    EXPECT_EQ(got, expect) << h;
  }
}

TEST_F(StoreTest, EntitiesSpreadOverEveryPhysicalPartition) {
  PARTKV_REQUIRE_LOCAL("tests the local engine's physical partitions");
  for (int i = 0; i < 800; ++i) {
    ASSERT_OK(table_->Insert(Make("device-" + std::to_string(i), "r", i)));
  }
  engine::SharedTable& data = FrontAccess::Of(*table_).data();
  rocksdb::DB* db = FrontAccess::Of(*store_).db();
  size_t total = 0;
  for (size_t p = 0; p < data.partitions().size(); ++p) {
    // Physical partition p: the keys of its prefix in its shared column family.
    const std::string& prefix = data.partitions()[p].prefix;
    std::unique_ptr<rocksdb::Iterator> it(
        db->NewIterator(rocksdb::ReadOptions(), data.partitions()[p].cf));
    size_t n = 0;
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
      std::string pk, rk;
      ASSERT_OK(engine::DecodeEntityKey(it->key().ToStringView().substr(prefix.size()), &pk, &rk));
      EXPECT_EQ(data.PartitionIndexOf(pk), p) << pk << " stored in the wrong physical partition";
      ++n;
    }
    EXPECT_GT(n, 20u) << "physical partition " << p << " got too few of 800 partition keys";
    total += n;
  }
  EXPECT_EQ(total, 800u);
}

}  // namespace
}  // namespace partkv
