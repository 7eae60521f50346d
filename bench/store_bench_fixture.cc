#include "bench/store_bench_fixture.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "api/front/front_access.h"
#include "engine/key_codec.h"
#include "engine/local/store_state.h"
#include "fmt/format.h"
#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/write_buffer_manager.h"

namespace partkv::bench::store_bench {

Config g_config;
Fixture* g_fixture = nullptr;

namespace {

// Opens a store at `path` with one empty table kTableName of kPartitions physical partitions.
void OpenStoreWithTable(const std::string& path, std::optional<Store>* store,
                        std::optional<Table>* table) {
  auto s = Store::Open(path);
  if (!s.ok()) Die("open store: " + s.status().ToString());
  store->emplace(std::move(*s));
  TableOptions options;
  options.physical_partitions = kPartitions;
  Status cs = (*store)->CreateTable(kTableName, options);
  if (!cs.ok()) Die("create table: " + cs.ToString());
  auto t = (*store)->OpenTable(kTableName);
  if (!t.ok()) Die("open table: " + t.status().ToString());
  table->emplace(std::move(*t));
}

RawOptions OptionsLike(const engine::StoreState& store) {
  RawOptions o;
  o.partition = store.DataOptions(kPartitions);
  const auto* table = o.partition.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  if (table == nullptr || table->block_cache == nullptr) {
    Die("the store's column families have no block-based table with a block cache");
  }
  rocksdb::BlockBasedTableOptions t = *table;
  t.block_cache = engine::StoreState::NewBlockCache(table->block_cache->GetCapacity());
  o.partition.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));

  o.db = store.db()->GetDBOptions();
  if (o.db.write_buffer_manager == nullptr) Die("the store has no write-buffer manager");
  o.db.write_buffer_manager = std::make_shared<rocksdb::WriteBufferManager>(
      o.db.write_buffer_manager->buffer_size(), t.block_cache, /*allow_stall=*/true);
  // The sanitized options name the store's directory and own its logger and file manager.
  o.db.db_paths.clear();
  o.db.wal_dir.clear();
  o.db.db_log_dir.clear();
  o.db.info_log.reset();
  o.db.sst_file_manager.reset();
  o.db.create_if_missing = true;
  o.db.error_if_exists = true;

  // The store's default column family is idle and small; so is the raw one.
  o.default_cf.table_factory = o.partition.table_factory;
  o.default_cf.write_buffer_size = 1 << 20;
  o.default_cf.arena_block_size = 64 * 1024;
  return o;
}

uint64_t SumProperty(rocksdb::DB* db, const engine::SharedTable& data, const std::string& name) {
  uint64_t total = 0;
  (void)data;  // the table's partitions live in the store's shared column families
  (void)total;
  return StoreIntProperty(db, name);
}

// "rocksdb.num-files-at-level<N>" is a string property, not an int one.
uint64_t SumFilesAtLevel(rocksdb::DB* db, const engine::SharedTable& data, int level) {
  uint64_t total = 0;
  (void)data;
  (void)total;
  return StoreFilesAtLevel(db, level);
}

// Waits (up to a minute) until no flush or compaction is pending or running, so the read
// benchmarks see a settled LSM tree.
void WaitForQuiet(rocksdb::DB* db, const engine::SharedTable& data) {
  for (int i = 0; i < 600; ++i) {
    uint64_t busy = SumProperty(db, data, rocksdb::DB::Properties::kCompactionPending) +
                    SumProperty(db, data, rocksdb::DB::Properties::kMemTableFlushPending);
    uint64_t running = 0;
    db->GetIntProperty(rocksdb::DB::Properties::kNumRunningCompactions, &running);
    busy += running;
    db->GetIntProperty(rocksdb::DB::Properties::kNumRunningFlushes, &running);
    busy += running;
    if (busy == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::string CompressionName(rocksdb::CompressionType type) {
  std::string name;
  if (!rocksdb::GetStringFromCompressionType(&name, type).ok()) name = std::to_string(type);
  return name;
}

}  // namespace

RawDb::RawDb(const std::string& path, const RawOptions& options, uint32_t partitions) {
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs{
      {rocksdb::kDefaultColumnFamilyName, options.default_cf}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options.db, path, cfs, &handles, &db);
  if (!s.ok()) Die("open raw database: " + s.ToString());
  db_.reset(db);
  default_ = handles[0];
  std::vector<std::string> names;
  for (uint32_t i = 0; i < partitions; ++i) names.push_back(fmt::format("p{}", i));
  // One call, as the store does: creating them one by one is quadratic.
  s = db_->CreateColumnFamilies(options.partition, names, &partitions_);
  if (!s.ok()) Die("create raw column families: " + s.ToString());
}

RawDb::~RawDb() {
  for (auto* h : partitions_) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  db_->DestroyColumnFamilyHandle(default_).PermitUncheckedError();
  db_->Close().PermitUncheckedError();
}

FreshTable::FreshTable() { OpenStoreWithTable(dir.Sub("store"), &store, &table); }

void BuildFixture(Fixture* f) {
  OpenStoreWithTable(f->dir.Sub("store"), &f->store, &f->table);
  f->raw_options = OptionsLike(FrontAccess::Of(*f->store));

  uint64_t batches = g_config.read_entities / kEntitiesPerPartitionKey;
  uint64_t flushed_batches = batches * 9 / 10;
  for (uint64_t b = 0; b < batches; ++b) {
    if (b == flushed_batches) {
      Status fs = f->store->Flush();
      if (!fs.ok()) Die("flush: " + fs.ToString());
      f->flushed_entities = b * kEntitiesPerPartitionKey;
    }
    auto r = f->table->Submit(MakeInsertBatch(b));
    if (!r.ok()) Die("populate: " + r.status().ToString());
  }
  rocksdb::DB* db = FrontAccess::Of(*f->store).db();
  WaitForQuiet(db, f->data());

  uint64_t n = batches * kEntitiesPerPartitionKey;
  Permutation order(n);
  for (uint64_t i = 0; i < g_config.gets; ++i) {
    uint64_t e = order[i % n];
    std::string pk = PartitionKeyOf(e / kEntitiesPerPartitionKey);
    std::string rk = RowKeyOf(e);
    const auto& part = f->data().partitions()[f->PartitionOf(pk)];
    f->raw_get_keys.push_back(Fixture::RawKey{part.prefix + engine::EntityKey(pk, rk), part.cf});
    f->get_keys.emplace_back(std::move(pk), std::move(rk));
  }
  // Warm the block cache once, so neither Get side pays the first loads.
  rocksdb::PinnableSlice v;
  for (uint64_t e = 0; e < n; ++e) {
    std::string pk = PartitionKeyOf(e / kEntitiesPerPartitionKey);
    v.Reset();
    const auto& part = f->data().partitions()[f->PartitionOf(pk)];
    rocksdb::Status gs = db->Get(rocksdb::ReadOptions(), part.cf,
                                 part.prefix + engine::EntityKey(pk, RowKeyOf(e)), &v);
    if (!gs.ok()) Die("warm-up read: " + gs.ToString());
  }
}

std::vector<std::pair<std::string, std::string>> FixtureFacts(const Fixture& f) {
  rocksdb::DB* db = FrontAccess::Of(*f.store).db();
  const auto& data = f.data();
  uint64_t ssts = SumFilesAtLevel(db, data, 0);
  uint64_t deeper = 0;
  for (int level = 1; level < 7; ++level) deeper += SumFilesAtLevel(db, data, level);
  const auto& o = f.raw_options;
  const auto* t = o.partition.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  return {
      {"physical partitions", std::to_string(kPartitions)},
      {"rocksdb options", fmt::format("block cache {} MiB, write-buffer manager {} MiB, "
                                      "write_buffer_size {} MiB, bloom {}, compression {}",
                                      t->block_cache->GetCapacity() >> 20,
                                      o.db.write_buffer_manager->buffer_size() >> 20,
                                      o.partition.write_buffer_size >> 20,
                                      t->filter_policy ? t->filter_policy->Name() : "none",
                                      CompressionName(o.partition.compression))},
      {"raw baseline",
       "a second DB with the store's options and a cache and write-buffer "
       "manager of the same sizes; raw Get reads the store's own DB"},
      {"insert",
       fmt::format("{} single inserts into an empty table, scrambled order", g_config.inserts)},
      {"batch", fmt::format("{} batches of 100 inserts into an empty table", g_config.batches)},
      {"get", fmt::format("{} Gets over {} entities ({} flushed: {} L0 + {} deeper SST files; "
                          "the rest in memtables), warm cache",
                          g_config.gets, g_config.read_entities, f.flushed_entities, ssts, deeper)},
      {"rounds",
       fmt::format("{} (pairs interleaved; ratio = median of per-round ratios)", g_config.rounds)},
  };
}

}  // namespace partkv::bench::store_bench
