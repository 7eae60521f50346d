#include "bench/compare/disk.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "api/front/front_access.h"
#include "engine/cursor.h"
#include "engine/key_codec.h"
#include "engine/store_state.h"
#include "engine/table_handle.h"
#include "engine/value_codec.h"
#include "fmt/format.h"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/table.h"
#include "rocksdb/write_batch.h"
#include "rocksdb/write_buffer_manager.h"

namespace partkv::compare {
namespace {

Status FromRocks(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return Status::OK();
  return Status::IOError(what + ": " + s.ToString());
}

// The shared column families holding the table's physical partitions (each once).
std::vector<rocksdb::ColumnFamilyHandle*> HandlesOf(const Table& table) {
  std::vector<rocksdb::ColumnFamilyHandle*> out;
  for (const auto& p : FrontAccess::Of(table).data().partitions()) {
    if (std::find(out.begin(), out.end(), p.cf) == out.end()) out.push_back(p.cf);
  }
  return out;
}

uint64_t SumIntProperty(rocksdb::DB* db, const std::vector<rocksdb::ColumnFamilyHandle*>& cfs,
                        const std::string& name) {
  uint64_t total = 0;
  for (auto* cf : cfs) {
    uint64_t v = 0;
    if (db->GetIntProperty(cf, name, &v)) total += v;
  }
  return total;
}

bool Busy(rocksdb::DB* db) {
  uint64_t v = 0, busy = 0;
  for (const auto* name : {&rocksdb::DB::Properties::kNumRunningCompactions,
                           &rocksdb::DB::Properties::kNumRunningFlushes,
                           &rocksdb::DB::Properties::kMemTableFlushPending,
                           &rocksdb::DB::Properties::kCompactionPending}) {
    // The running counts are DB-wide; the pending ones summed over the column families.
    if (db->GetAggregatedIntProperty(*name, &v)) busy += v;
  }
  return busy != 0;
}

bool WaitForQuietDb(rocksdb::DB* db, double max_seconds) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(max_seconds * 1000));
  while (Busy(db)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace

struct RawDb::Rep {
  std::unique_ptr<rocksdb::DB> db;
  rocksdb::ColumnFamilyHandle* default_cf = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> partitions;
  rocksdb::WriteOptions write_options;

  ~Rep() {
    if (db == nullptr) return;
    for (auto* h : partitions) db->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    if (default_cf != nullptr) db->DestroyColumnFamilyHandle(default_cf).PermitUncheckedError();
    db->Close().PermitUncheckedError();
  }
};

Result<std::unique_ptr<RawDb>> RawDb::Create(const std::string& path, const Store& store,
                                             uint32_t partitions) {
  const engine::StoreState& state = FrontAccess::Of(store);
  rocksdb::ColumnFamilyOptions partition = state.DataOptions(partitions);
  const auto* table = partition.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  if (table == nullptr || table->block_cache == nullptr) {
    return Status::InvalidArgument("the store's partitions have no block-based table with a cache");
  }
  rocksdb::BlockBasedTableOptions t = *table;
  t.block_cache = rocksdb::NewLRUCache(table->block_cache->GetCapacity());
  partition.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));

  rocksdb::DBOptions db_options = state.db()->GetDBOptions();
  if (db_options.write_buffer_manager == nullptr) {
    return Status::InvalidArgument("the store has no write-buffer manager");
  }
  db_options.write_buffer_manager = std::make_shared<rocksdb::WriteBufferManager>(
      db_options.write_buffer_manager->buffer_size(), t.block_cache, /*allow_stall=*/true);
  // The store's sanitized options name its directory and own its logger and file manager.
  db_options.db_paths.clear();
  db_options.wal_dir.clear();
  db_options.db_log_dir.clear();
  db_options.info_log.reset();
  db_options.sst_file_manager.reset();
  db_options.create_if_missing = true;
  db_options.error_if_exists = true;

  rocksdb::ColumnFamilyOptions default_cf;
  default_cf.table_factory = partition.table_factory;
  default_cf.write_buffer_size = 1 << 20;

  std::unique_ptr<RawDb> raw(new RawDb());
  raw->rep_ = std::make_unique<Rep>();
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs{{rocksdb::kDefaultColumnFamilyName, default_cf}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  PARTKV_RETURN_IF_ERROR(FromRocks(rocksdb::DB::Open(db_options, path, cfs, &handles, &db),
                                   "open raw database " + path));
  raw->rep_->db.reset(db);
  raw->rep_->default_cf = handles[0];
  std::vector<std::string> names;
  for (uint32_t i = 0; i < partitions; ++i) names.push_back(fmt::format("p{}", i));
  // One call, as the store does: creating them one by one is quadratic.
  PARTKV_RETURN_IF_ERROR(FromRocks(
      db->CreateColumnFamilies(partition, names, &raw->rep_->partitions), "create raw partitions"));
  return raw;
}

RawDb::~RawDb() = default;

Status RawDb::WriteBatch(size_t partition, const std::vector<RawWrite>& writes) {
  rocksdb::WriteBatch wb;
  rocksdb::ColumnFamilyHandle* cf = rep_->partitions[partition];
  for (const RawWrite& w : writes) {
    PARTKV_RETURN_IF_ERROR(FromRocks(wb.Put(cf, w.key, w.value), "raw batch"));
  }
  return FromRocks(rep_->db->Write(rep_->write_options, &wb), "raw write");
}

Status RawDb::FlushAndSettle() {
  rocksdb::FlushOptions fo;
  fo.wait = true;
  PARTKV_RETURN_IF_ERROR(FromRocks(rep_->db->Flush(fo, rep_->partitions), "raw flush"));
  WaitForQuietDb(rep_->db.get(), 600);
  return Status::OK();
}

uint64_t RawDb::SstBytes() const {
  return SumIntProperty(rep_->db.get(), rep_->partitions,
                        rocksdb::DB::Properties::kLiveSstFilesSize);
}

RawWrite EncodeForRaw(const Entity& entity, int64_t timestamp_ticks, uint64_t etag_version) {
  RawWrite w;
  w.key = engine::EntityKey(entity.partition_key(), entity.row_key());
  engine::EncodeValue(engine::ValueHeader{timestamp_ticks, etag_version}, entity, &w.value);
  return w;
}

size_t PartitionIndexOf(const Table& table, std::string_view pk) {
  return FrontAccess::Of(table).data().PartitionIndexOf(pk);
}

bool WaitForQuiet(const Store& store, double max_seconds) {
  return WaitForQuietDb(FrontAccess::Of(store).db(), max_seconds);
}

uint64_t TableSstBytes(const Store& store, const Table& table) {
  // The table's partitions are key ranges of shared column families: the SST bytes of each range.
  rocksdb::SizeApproximationOptions so;
  so.include_files = true;
  so.include_memtables = false;
  uint64_t total = 0;
  for (const auto& p : FrontAccess::Of(table).data().partitions()) {
    const std::string end = engine::PrefixEnd(p.prefix);
    rocksdb::Range range(p.prefix, end);
    uint64_t size = 0;
    if (FrontAccess::Of(store).db()->GetApproximateSizes(so, p.cf, &range, 1, &size).ok()) total += size;
  }
  return total;
}

std::vector<uint64_t> CountEntitiesOnDisk(const Store& store, const Table& table) {
  std::vector<uint64_t> counts;
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;  // a census, not a read the measured reads should profit from
  for (const auto& p : FrontAccess::Of(table).data().partitions()) {
    const std::string end = engine::PrefixEnd(p.prefix);
    const rocksdb::Slice lower(p.prefix), upper(end);
    ro.iterate_lower_bound = &lower;
    ro.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it(FrontAccess::Of(store).db()->NewIterator(ro, p.cf));
    uint64_t n = 0;
    for (it->Seek(lower); it->Valid(); it->Next()) ++n;
    counts.push_back(it->status().ok() ? n : UINT64_MAX);
  }
  return counts;
}

std::string LsmShape(const Store& store, const Table& table) {
  std::string out;
  for (int level = 0; level < 7; ++level) {
    uint64_t files = 0;
    for (auto* cf : HandlesOf(table)) {
      // A string property: GetIntProperty does not serve it.
      std::string v;
      if (FrontAccess::Of(store).db()->GetProperty(
              cf, rocksdb::DB::Properties::kNumFilesAtLevelPrefix + std::to_string(level), &v)) {
        files += std::strtoull(v.c_str(), nullptr, 10);
      }
    }
    if (files == 0) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("L{} {}", level, files);
  }
  return out.empty() ? "no SST files" : out + " SST files";
}

}  // namespace partkv::compare
