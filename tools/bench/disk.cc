#include "tools/bench/disk.h"

#include <chrono>
#include <thread>

#include "fmt/format.h"
#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/utilities/options_util.h"
#include "rocksdb/write_batch.h"
#include "rocksdb/write_buffer_manager.h"
#include "tools/common/machine.h"

namespace partkv::compare {
namespace {

Status FromRocks(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return Status::OK();
  return Status::IOError(what + ": " + s.ToString());
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

// The store's data column families are "d0", "d1", ... (docs/format.md "Column families").
bool IsDataColumnFamily(const std::string& name) {
  return name.size() > 1 && name[0] == 'd' &&
         name.find_first_not_of("0123456789", 1) == std::string::npos;
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
                                             uint32_t partitions,
                                             const StoreOptions& store_options) {
  // The store's budget is its block cache's capacity; memtables are charged to the cache and
  // take at most half (partkv/options.h). The same kind of cache as a store's: RocksDB's
  // HyperClockCache sized for 4 KiB blocks (docs/design.md "The block cache").
  std::shared_ptr<rocksdb::Cache> cache =
      rocksdb::HyperClockCacheOptions(store_options.memory_budget_bytes, 4096).MakeSharedCache();
  rocksdb::ConfigOptions config;
  config.ignore_unsupported_options = true;  // the store's compaction filter is not RocksDB's
  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> recorded;
  // Every block-based table of the recorded options gets `cache` as its block cache.
  PARTKV_RETURN_IF_ERROR(
      FromRocks(rocksdb::LoadLatestOptions(config, store.path(), &db_options, &recorded, &cache),
                "read the options of store " + store.path()));
  const rocksdb::ColumnFamilyDescriptor* data = nullptr;
  for (const auto& d : recorded) {
    if (IsDataColumnFamily(d.name)) data = &d;
  }
  if (data == nullptr) {
    return Status::InvalidArgument("the options of store " + store.path() +
                                   " name no data column family");
  }
  rocksdb::ColumnFamilyOptions partition = data->options;
  partition.compaction_filter_factory.reset();

  db_options.write_buffer_manager = std::make_shared<rocksdb::WriteBufferManager>(
      store_options.memory_budget_bytes / 2, cache, /*allow_stall=*/true);
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

Status RawDb::WriteBatch(size_t partition, const std::vector<StoredEntity>& writes) {
  rocksdb::WriteBatch wb;
  rocksdb::ColumnFamilyHandle* cf = rep_->partitions[partition];
  for (const StoredEntity& w : writes) {
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

std::vector<uint64_t> EntitiesPerPartition(const TableCensus& census) {
  std::vector<uint64_t> out;
  for (const PartitionCensus& p : census.partitions) out.push_back(p.entities);
  return out;
}

std::string LsmShape(const TableCensus& census) {
  return tools::FormatLsmShape(census.sst_files_per_level);
}

}  // namespace partkv::compare
