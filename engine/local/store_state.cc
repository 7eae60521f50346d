#include "engine/local/store_state.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <set>
#include <thread>

#include "engine/local/dropped_tables.h"
#include "engine/local/info_log.h"
#include "engine/local/migration.h"
#include "engine/local/rocks_status.h"
#include "engine/local/store_creation.h"
#include "engine/profile_spec.h"
#include "engine/validation.h"
#include "partkv/profile.h"
#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/env.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/perf_level.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/table.h"
#include "rocksdb/write_buffer_manager.h"

namespace partkv::engine {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kMaxPhysicalPartitions = 1024;
constexpr size_t kMinMemoryBudget = 4u << 20;
// The block cache's expected entry: one data block (RocksDB's default block_size).
constexpr size_t kBlockCacheEntryCharge = 4096;

std::string RandomBytes(size_t n) {
  std::random_device rd;
  std::string out(n, '\0');
  for (auto& c : out) c = static_cast<char>(rd() & 0xFF);
  return out;
}

Result<uint64_t> ReadNumber(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const char* key) {
  std::string v;
  rocksdb::Status s = db->Get(rocksdb::ReadOptions(), cf, key, &v);
  if (s.IsNotFound()) return Status::NotFound(key);
  if (!s.ok()) return FromRocks(s, std::string("read ") + key);
  uint64_t out = 0;
  if (v.empty() || v.size() > 20)
    return Status::Corruption(std::string("meta ") + key + " is not a number");
  for (char c : v) {
    if (c < '0' || c > '9')
      return Status::Corruption(std::string("meta ") + key + " is not a number");
    out = out * 10 + static_cast<uint64_t>(c - '0');
  }
  return out;
}

rocksdb::CompressionType ChooseCompression() {
  for (auto t : rocksdb::GetSupportedCompressions()) {
    if (t == rocksdb::kLZ4Compression) return t;
  }
  return rocksdb::kSnappyCompression;
}

// What Open finds at the store's path.
struct StoreDirectory {
  bool has_db = false;  // a database is there to open; else Open creates one
  // Held from before the database is created until the store is complete (Commit).
  std::unique_ptr<StoreCreation> creation;
};

Status CheckOpenArguments(const std::string& path, const StoreOptions& options) {
  if (path.empty()) return Status::InvalidArgument("store path is empty");
  if (options.memory_budget_bytes < kMinMemoryBudget) {
    return Status::InvalidArgument("memory_budget_bytes is " +
                                   std::to_string(options.memory_budget_bytes) +
                                   "; the minimum is 4 MiB");
  }
  PARTKV_RETURN_IF_ERROR(CheckProfileName(options.profile).WithContext("StoreOptions::profile"));
  return Status::OK();
}

// Whether `path` holds a store to open; when it holds none, claims it for a new store
// (StoreCreation::Begin), as far as the options allow.
Result<StoreDirectory> FindOrBeginStore(const std::string& path, const StoreOptions& options) {
  std::error_code ec;
  bool dir_exists = fs::exists(path, ec);
  if (dir_exists && !fs::is_directory(path, ec)) {
    return Status::InvalidArgument("store path '" + path + "' exists and is not a directory");
  }
  // A directory with the creation marker holds no store yet, whatever else it holds
  // (engine/local/store_creation.h): the creation is done again.
  bool unfinished = dir_exists && HasCreationMarker(path);
  StoreDirectory dir;
  dir.has_db = dir_exists && !unfinished && fs::exists(fs::path(path) / "CURRENT", ec);
  const std::string not_a_store =
      "'" + path + "' is not a partkv store: the directory is not empty and holds no store";
  if (!dir.has_db) {
    if (!options.create_if_missing) {
      return Status::NotFound((unfinished ? "'" + path + "' holds an unfinished store creation, "
                                          : "no partkv store at '" + path + "' ") +
                              "(create_if_missing is off)");
    }
    if (dir_exists && !unfinished && !fs::is_empty(path, ec)) {
      return Status::InvalidArgument(not_a_store);
    }
    PARTKV_ASSIGN_OR_RETURN(dir.creation, StoreCreation::Begin(path));
    if (dir.creation == nullptr) {  // another process created the store meanwhile
      dir.has_db = fs::exists(fs::path(path) / "CURRENT", ec);
      if (!dir.has_db) return Status::InvalidArgument(not_a_store);
    }
  }
  if (dir.has_db && options.error_if_exists) {
    return Status::AlreadyExists("a store exists at '" + path + "' (error_if_exists is on)");
  }
  return dir;
}

// The write-buffer manager charging memtables to `cache`, up to `limit` bytes.
std::shared_ptr<rocksdb::WriteBufferManager> NewWriteBufferManager(
    size_t limit, std::shared_ptr<rocksdb::Cache> cache) {
  // No allow_stall: a write-buffer-manager stall waits for memory that only a flush frees, and
  // when the memtables over budget are empty nothing can be flushed, so it never ends (as with
  // hundreds of idle column families). Reaching the budget triggers flushes instead; a stall
  // RocksDB imposes for its own flushes and compactions is bounded by StoreState::Write.
  return std::make_shared<rocksdb::WriteBufferManager>(limit, std::move(cache),
                                                       /*allow_stall=*/false);
}

// The SST format of every column family: block-based, over `cache`, with bloom filters.
std::shared_ptr<rocksdb::TableFactory> NewTableFactory(std::shared_ptr<rocksdb::Cache> cache) {
  rocksdb::BlockBasedTableOptions table_options;
  table_options.block_cache = std::move(cache);
  table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  table_options.whole_key_filtering = true;  // insert-if-absent probes whole keys
  table_options.cache_index_and_filter_blocks = true;
  table_options.pin_l0_filter_and_index_blocks_in_cache = true;
  table_options.format_version = 5;
  return std::shared_ptr<rocksdb::TableFactory>(rocksdb::NewBlockBasedTableFactory(table_options));
}

// The options of the feed column family, from those of the data column families `data`. Its keys
// are a table's sequence numbers (and its versions, in the version index), written in ascending
// order: memtable inserts take a hint per key prefix (table and index), which made an insert into
// a table with a feed a third cheaper, and an L0 file of it overlaps no other of the same table,
// so most of its compactions are trivial moves. It is read by range scans only, so it has no bloom
// filters (of the memtable or the SST files), whose building was a third of a flush of it, and
// blocks of 64 KiB, which a reader of the feed (who reads each entry once, without filling the
// cache) finds at a third of the cost per entry of 4 KiB ones. Its files are not compressed: a feed
// entry is written once and dropped by retention, and compressing them at flush cost inserts
// with a feed a tenth of their rate. Its memtables are twice the data column families' and it
// may hold four (bounded, like theirs, by the write-buffer manager's budget): every table's
// superseded versions land in this one column family, where their rows spread over 16, so it
// may flush most often, and a write waits when its memtables are all full.
rocksdb::ColumnFamilyOptions FeedOptionsOf(const rocksdb::ColumnFamilyOptions& data) {
  rocksdb::ColumnFamilyOptions feed = data;
  const auto* table = data.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  rocksdb::BlockBasedTableOptions table_options =
      table != nullptr ? *table : rocksdb::BlockBasedTableOptions();
  table_options.filter_policy.reset();
  table_options.whole_key_filtering = false;
  table_options.block_size = 64 << 10;
  feed.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table_options));
  feed.memtable_prefix_bloom_size_ratio = 0;
  feed.memtable_whole_key_filtering = false;
  feed.memtable_insert_with_hint_prefix_extractor.reset(
      rocksdb::NewFixedPrefixTransform(kPartitionKeyPrefixLength));
  feed.compression = rocksdb::kNoCompression;
  feed.write_buffer_size = std::min<size_t>(data.write_buffer_size * 2, size_t{128} << 20);
  feed.max_write_buffer_number = 4;
  return feed;
}

// The options of `meta` (and of RocksDB's default column family, which stays empty).
rocksdb::ColumnFamilyOptions MetaOptions(std::shared_ptr<rocksdb::TableFactory> table_factory) {
  rocksdb::ColumnFamilyOptions meta_cf;
  meta_cf.table_factory = std::move(table_factory);
  meta_cf.write_buffer_size = 1 << 20;
  meta_cf.arena_block_size = 64 * 1024;
  return meta_cf;
}

Status LowerCompactionPriority(const StoreOptions& options) {
  if (options.low_priority_compactions) {
    // The pool's threads lower themselves before their next job (process-wide: options.h).
    rocksdb::Status s = rocksdb::Env::Default()->LowerThreadPoolCPUPriority(
        rocksdb::Env::Priority::LOW, rocksdb::CpuPriority::kLow);
    if (!s.ok()) return FromRocks(s, "lower the compaction threads' CPU priority");
  }
  return Status::OK();
}

// The column families of the database at `path` (only RocksDB's default one for a new store).
// InvalidArgument when the database is not a partkv store's.
Result<std::vector<std::string>> ListColumnFamilies(const rocksdb::DBOptions& db_options,
                                                    const std::string& path, bool has_db) {
  std::vector<std::string> names;
  if (has_db) {
    rocksdb::Status s = rocksdb::DB::ListColumnFamilies(db_options, path, &names);
    if (!s.ok()) return FromRocks(s, "open store '" + path + "'");
    if (std::find(names.begin(), names.end(), kMetaColumnFamily) == names.end()) {
      return Status::InvalidArgument("'" + path +
                                     "' is not a partkv store: it is a RocksDB database "
                                     "without partkv's meta column family");
    }
  } else {
    names = {rocksdb::kDefaultColumnFamilyName};
  }
  return names;
}

// The data column families found, and those of format 1 (one per physical partition), which
// a migration reads and the open after it drops.
struct ColumnFamilyCount {
  uint32_t data = 0;  // one more than the highest data column family's index
  size_t format1 = 0;
};

ColumnFamilyCount CountColumnFamilies(const std::vector<std::string>& names) {
  ColumnFamilyCount found;
  for (const auto& n : names) {
    uint32_t k, table_id, index;
    if (ParseDataColumnFamilyName(n, &k)) found.data = std::max(found.data, k + 1);
    if (ParsePartitionColumnFamilyName(n, &table_id, &index)) ++found.format1;
  }
  return found;
}

// How to open each of the column families `names`. InvalidArgument on one partkv never makes.
Result<std::vector<rocksdb::ColumnFamilyDescriptor>> DescribeColumnFamilies(
    const StoreState& st, const std::string& path, const std::vector<std::string>& names,
    const ColumnFamilyCount& found, const rocksdb::ColumnFamilyOptions& meta_cf) {
  const uint32_t data_count = found.data != 0 ? found.data : kDefaultDataColumnFamilies;
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const auto& n : names) {
    uint32_t k, table_id, index;
    if (n == kMetaColumnFamily || n == rocksdb::kDefaultColumnFamilyName) {
      descriptors.emplace_back(n, meta_cf);
    } else if (n == kFeedColumnFamily) {
      descriptors.emplace_back(n, st.FeedOptions());
    } else if (ParseDataColumnFamilyName(n, &k)) {
      descriptors.emplace_back(n, st.DataOptions(data_count));
    } else if (ParsePartitionColumnFamilyName(n, &table_id, &index)) {
      descriptors.emplace_back(n, st.DataOptions(static_cast<uint32_t>(found.format1)));
    } else {
      return Status::InvalidArgument("'" + path +
                                     "' is not a partkv store: it has column family '" + n +
                                     "', which partkv never makes");
    }
  }
  return descriptors;
}

// Destroys the handles left in *handles (those the store has not taken) when it goes, on every
// early return of Open, before the database *db closes: RocksDB requires every handle gone first.
class HandleGuard {
 public:
  HandleGuard(const std::unique_ptr<rocksdb::DB>* db,
              std::vector<rocksdb::ColumnFamilyHandle*>* handles)
      : db_(db), handles_(handles) {}
  ~HandleGuard() {
    for (auto* h : *handles_) {
      if (h != nullptr) (*db_)->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    }
  }
  HandleGuard(const HandleGuard&) = delete;
  HandleGuard& operator=(const HandleGuard&) = delete;

 private:
  const std::unique_ptr<rocksdb::DB>* db_;
  std::vector<rocksdb::ColumnFamilyHandle*>* handles_;
};

}  // namespace

// RocksDB's HyperClockCache: lookups and releases are atomic operations on the entry, where
// LRUCache takes its shard's mutex for each. A bulk scan looks up every block it reads (even with
// fill_cache off), and with LRUCache those lookups kept taking the mutexes that point reads beside
// it needed, which cost the reads a fifth of their rate (docs/design.md "The block cache"). Its
// table is sized for entries of one data block, as RocksDB advises.
std::shared_ptr<rocksdb::Cache> StoreState::NewBlockCache(size_t capacity) {
  return rocksdb::HyperClockCacheOptions(capacity, kBlockCacheEntryCharge).MakeSharedCache();
}

Result<std::shared_ptr<StoreState>> StoreState::Open(std::string path,
                                                     const StoreOptions& options) {
  PARTKV_RETURN_IF_ERROR(CheckOpenArguments(path, options));
  PARTKV_ASSIGN_OR_RETURN(StoreDirectory dir, FindOrBeginStore(path, options));
  std::shared_ptr<StoreState> st(new StoreState());
  // One budget: the block cache's capacity; memtables are charged to the same cache through the
  // write-buffer manager and may use at most half of it.
  auto cache = NewBlockCache(options.memory_budget_bytes);
  auto wbm = NewWriteBufferManager(options.memory_budget_bytes / 2, cache);
  auto table_factory = NewTableFactory(cache);
  st->Configure(path, options, table_factory);
  const rocksdb::ColumnFamilyOptions meta_cf = MetaOptions(table_factory);
  PARTKV_RETURN_IF_ERROR(LowerCompactionPriority(options));
  const rocksdb::DBOptions db_options = st->DatabaseOptions(path, !dir.has_db, wbm);

  PARTKV_ASSIGN_OR_RETURN(std::vector<std::string> names,
                          ListColumnFamilies(db_options, path, dir.has_db));
  const ColumnFamilyCount found = CountColumnFamilies(names);
  PARTKV_ASSIGN_OR_RETURN(std::vector<rocksdb::ColumnFamilyDescriptor> descriptors,
                          DescribeColumnFamilies(*st, path, names, found, meta_cf));
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  HandleGuard guard(&st->db_, &handles);
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(db_options, path, descriptors, &handles, &raw);
  if (!s.ok()) return FromRocks(s, "open store '" + path + "'");
  st->db_.reset(raw);
  const std::map<std::string, size_t> format1 = st->AdoptHandles(names, &handles);

  if (!dir.has_db) {
    PARTKV_RETURN_IF_ERROR(st->InitializeNewStore(path, meta_cf, dir.creation.get()));
  }
  PARTKV_RETURN_IF_ERROR(st->CheckFormat(path, format1, handles));
  PARTKV_RETURN_IF_ERROR(st->DropFormat1(format1, &handles));
  PARTKV_RETURN_IF_ERROR(st->CheckDataColumnFamilies(path, found.data));
  PARTKV_RETURN_IF_ERROR(st->LoadMeta());
  return st;
}

void StoreState::Configure(const std::string& path, const StoreOptions& options,
                           std::shared_ptr<rocksdb::TableFactory> table_factory) {
  path_ = path;
  default_profile_ = options.profile;
  default_throttling_ = options.throttling;
  clock_source_ = options.clock ? options.clock : Clock::Steady();
  write_stall_timeout_ = options.write_stall_timeout;

  rocksdb::ColumnFamilyOptions cf;
  cf.table_factory = std::move(table_factory);
  cf.write_buffer_size =
      std::clamp<size_t>(options.memory_budget_bytes / 8, size_t{1} << 20, size_t{64} << 20);
  cf.max_write_buffer_number = 3;
  // Small arena blocks: an idle memtable still holds one block, charged to the write-buffer
  // manager (the default is write_buffer_size / 8).
  cf.arena_block_size = 64 * 1024;
  cf.memtable_prefix_bloom_size_ratio = 0.02;
  cf.memtable_whole_key_filtering = true;
  cf.level_compaction_dynamic_level_bytes = true;
  cf.compression = ChooseCompression();
  cf.compaction_filter_factory = DroppedTables::Factory(dropped_);
  partition_options_ = cf;
  feed_options_ = FeedOptionsOf(cf);
  memory_budget_ = options.memory_budget_bytes;
  maintenance_interval_ = options.maintenance_interval;
  scan_threads_ = options.scan_threads != 0
                      ? options.scan_threads
                      : std::max<size_t>(1, std::thread::hardware_concurrency());
  // The caller of a query is one of its threads: the pool holds the others, which read no RocksDB
  // performance counter (engine/local/perf_counters.h).
  scan_pool_ = std::make_unique<WorkerPool>(
      scan_threads_ - 1, [] { rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable); });
}

rocksdb::DBOptions StoreState::DatabaseOptions(
    const std::string& path, bool create, std::shared_ptr<rocksdb::WriteBufferManager> wbm) const {
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = create;
  db_options.write_buffer_manager = std::move(wbm);
  db_options.max_background_jobs = 2;
  // RocksDB's default logger aborts the process once a write of it failed (a full disk):
  // engine/local/info_log.h.
  db_options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  db_options.info_log = NewInfoLog(path, db_options.info_log_level);
  db_options.avoid_unnecessary_blocking_io = true;
  db_options.listeners.push_back(recovery_);
  return db_options;
}

std::map<std::string, size_t> StoreState::AdoptHandles(
    const std::vector<std::string>& names, std::vector<rocksdb::ColumnFamilyHandle*>* handles) {
  std::vector<rocksdb::ColumnFamilyHandle*>& h = *handles;
  std::map<std::string, size_t> format1;  // name -> index in handles
  for (size_t i = 0; i < names.size(); ++i) {
    uint32_t k, table_id, index;
    if (names[i] == kMetaColumnFamily) {
      meta_ = h[i];
      h[i] = nullptr;
    } else if (names[i] == rocksdb::kDefaultColumnFamilyName) {
      default_ = h[i];
      h[i] = nullptr;
    } else if (names[i] == kFeedColumnFamily) {
      feed_ = h[i];
      h[i] = nullptr;
    } else if (ParseDataColumnFamilyName(names[i], &k)) {
      if (data_.size() <= k) data_.resize(k + 1, nullptr);
      data_[k] = h[i];
      h[i] = nullptr;
    } else if (ParsePartitionColumnFamilyName(names[i], &table_id, &index)) {
      format1[names[i]] = i;
    }
  }
  return format1;
}

Status StoreState::InitializeNewStore(const std::string& path,
                                      const rocksdb::ColumnFamilyOptions& meta_cf,
                                      StoreCreation* creation) {
  rocksdb::Status s = db_->CreateColumnFamily(meta_cf, kMetaColumnFamily, &meta_);
  if (!s.ok()) return FromRocks(s, "create meta column family");
  PARTKV_RETURN_IF_ERROR(CreateDataColumnFamilies(kDefaultDataColumnFamilies));
  PARTKV_RETURN_IF_ERROR(CreateFeedColumnFamily());
  rocksdb::WriteBatch wb;
  wb.Put(meta_, kFormatKey, std::to_string(kStoreFormatVersion));
  wb.Put(meta_, kSecretKey, RandomBytes(32));
  wb.Put(meta_, kClockReservedKey, "0");
  wb.Put(meta_, kNextTableIdKey, "1");
  wb.Put(meta_, kDataColumnFamiliesKey, std::to_string(kDefaultDataColumnFamilies));
  rocksdb::WriteOptions wo;
  wo.sync = true;
  s = db_->Write(wo, &wb);
  if (!s.ok()) return FromRocks(s, "initialise store");
  return creation->Commit().WithContext("create store '" + path + "'");
}

Status StoreState::CheckFormat(const std::string& path,
                               const std::map<std::string, size_t>& format1,
                               const std::vector<rocksdb::ColumnFamilyHandle*>& handles) {
  auto format = ReadNumber(db_.get(), meta_, kFormatKey);
  if (!format.ok()) {
    return Status::InvalidArgument("'" + path + "' is not a partkv store: no format version (" +
                                   format.status().ToString() + ")");
  }
  if (*format == kStoreFormatVersion) {
    if (feed_ == nullptr) {
      return Status::Corruption("store '" + path + "' is of format " +
                                std::to_string(kStoreFormatVersion) + " but lacks column family '" +
                                kFeedColumnFamily + "'");
    }
    return Status::OK();
  }
  if (*format > kStoreFormatVersion || *format < kFormatVersion1) {
    return Status::InvalidArgument(
        "store '" + path + "' has on-disk format version " + std::to_string(*format) +
        "; this build of partkv reads format versions 1 to 3 (upgraded on open) and " +
        std::to_string(kStoreFormatVersion) + " (docs/format.md)");
  }
  // Every older format gains the feed column family first (an open interrupted after this
  // finds it made and carries on).
  PARTKV_RETURN_IF_ERROR(CreateFeedColumnFamily().WithContext("upgrade store '" + path + "'"));
  if (*format == kFormatVersion1) {
    std::vector<std::pair<std::string, rocksdb::ColumnFamilyHandle*>> old;
    for (auto& [name, i] : format1) old.emplace_back(name, handles[i]);
    return MigrateFormat1(this, old).WithContext("migrate store '" + path + "' from format 1");
  }
  if (*format == kFormatVersion2) {
    // Formats 3 and 4 only add (change feeds, time to live): a format-2 store has no feed entry
    // to move. The key is rewritten so that a build without feeds refuses the store from now on.
    rocksdb::WriteOptions wo;
    wo.sync = true;
    rocksdb::Status s = db_->Put(wo, meta_, kFormatKey, std::to_string(kStoreFormatVersion));
    return FromRocks(s, "upgrade store '" + path + "' from format 2");
  }
  return MigrateFormat3(this).WithContext("upgrade store '" + path + "' from format 3");
}

Status StoreState::DropFormat1(const std::map<std::string, size_t>& format1,
                               std::vector<rocksdb::ColumnFamilyHandle*>* handles) {
  if (format1.empty()) return Status::OK();
  std::vector<rocksdb::ColumnFamilyHandle*> old;
  for (auto& [name, i] : format1) {
    old.push_back((*handles)[i]);
    (*handles)[i] = nullptr;
  }
  rocksdb::Status s = db_->DropColumnFamilies(old);
  for (auto* h : old) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  if (!s.ok()) return FromRocks(s, "drop the column families of format 1");
  return Status::OK();
}

Status StoreState::CheckDataColumnFamilies(const std::string& path, uint32_t data_found) const {
  auto data_count_meta = ReadNumber(db_.get(), meta_, kDataColumnFamiliesKey);
  if (!data_count_meta.ok()) return data_count_meta.status().WithContext("store meta");
  if (*data_count_meta < 1 || *data_count_meta > kMaxDataColumnFamilies ||
      data_.size() != *data_count_meta ||
      std::find(data_.begin(), data_.end(), nullptr) != data_.end()) {
    return Status::Corruption("store '" + path + "' should have " +
                              std::to_string(*data_count_meta) + " data column families and has " +
                              std::to_string(data_found));
  }
  return Status::OK();
}

Status StoreState::LoadMeta() {
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), meta_, kSecretKey, &secret_);
  if (!s.ok() || secret_.size() != 32)
    return Status::Corruption("store secret missing or malformed");
  auto reserved = ReadNumber(db_.get(), meta_, kClockReservedKey);
  if (!reserved.ok()) return reserved.status().WithContext("store meta");
  // Every tick below the reserved mark may have been issued before a crash: issue above it.
  last_ticks_ = static_cast<int64_t>(*reserved);
  ticks_limit_ = static_cast<int64_t>(*reserved);
  auto next_id = ReadNumber(db_.get(), meta_, kNextTableIdKey);
  if (!next_id.ok()) return next_id.status().WithContext("store meta");
  // Nothing else sees the store yet: the lock is for the analysis, and costs nothing here.
  port::MutexLock lock(&catalog_mu_);
  next_table_id_ = static_cast<uint32_t>(*next_id);
  return LoadCatalog();
}

Status StoreState::CreateDataColumnFamilies(uint32_t count) {
  std::vector<std::string> names;
  for (uint32_t k = 0; k < count; ++k) {
    if (k < data_.size() && data_[k] != nullptr) continue;
    names.push_back(DataColumnFamilyName(k));
  }
  if (names.empty()) return Status::OK();
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::Status s = db_->CreateColumnFamilies(DataOptions(count), names, &handles);
  for (auto* h : handles) {
    uint32_t k = 0;
    ParseDataColumnFamilyName(h->GetName(), &k);
    if (data_.size() <= k) data_.resize(k + 1, nullptr);
    data_[k] = h;
  }
  return FromRocks(s, "create the data column families");
}

Status StoreState::CreateFeedColumnFamily() {
  if (feed_ != nullptr) return Status::OK();
  rocksdb::Status s = db_->CreateColumnFamily(FeedOptions(), kFeedColumnFamily, &feed_);
  return FromRocks(s, "create the feed column family");
}

Status StoreState::LoadCatalog() {
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), meta_));
  for (it->Seek(kDroppedPrefix); it->Valid() && it->key().starts_with(kDroppedPrefix); it->Next()) {
    uint32_t id = 0;
    if (!ParseDroppedKey(it->key().ToStringView(), &id)) {
      return Status::Corruption("meta key '" + it->key().ToString() +
                                "' is not a dropped table id");
    }
    dropped_->Add(id);
  }
  for (it->Seek(kTablePrefix); it->Valid() && it->key().starts_with(kTablePrefix); it->Next()) {
    auto record = DecodeTableRecord(it->value().ToStringView());
    if (!record.ok()) return record.status();
    std::optional<KeyStrategy> pk_scheme, rk_scheme;
    for (auto [text, out] :
         {std::pair{&record->pk_scheme, &pk_scheme}, std::pair{&record->rk_scheme, &rk_scheme}}) {
      if (text->empty()) continue;
      auto parsed = KeyStrategy::Parse(*text);
      if (!parsed.ok()) {
        return Status::Corruption("table '" + record->name +
                                  "' has an unreadable key scheme: " + parsed.status().ToString());
      }
      *out = std::move(*parsed);
    }
    std::string key = LowerCase(record->name);
    PARTKV_ASSIGN_OR_RETURN(
        std::shared_ptr<SharedTable> data,
        NewSharedTable(std::move(*record), std::move(pk_scheme), std::move(rk_scheme)));
    if (NeedsMaintenance(*data)) StartMaintenance();
    tables_[key] = std::move(data);
  }
  if (!it->status().ok()) return FromRocks(it->status(), "read catalog");
  return Status::OK();
}

std::vector<PhysicalPartition> StoreState::PartitionsOf(const TableRecord& record) const {
  std::vector<PhysicalPartition> parts;
  parts.reserve(record.lower_bounds.size());
  const auto count = static_cast<uint32_t>(data_.size());
  for (uint32_t i = 0; i < record.lower_bounds.size(); ++i) {
    const uint64_t lb = record.lower_bounds[i];
    parts.push_back(PhysicalPartition{data_[DataColumnFamilyOf(record.id, lb, count)], lb,
                                      PartitionKeyPrefix(record.id, i)});
  }
  return parts;
}

StoreState::~StoreState() {
  StopMaintenance();
  resume_cache_.Clear();  // the kept streams' iterators and snapshots first
  tables_.clear();
  if (db_ && meta_ != nullptr) {
    // A clean close records the last tick issued instead of the mark reserved ahead of it, so the
    // next open continues from the clock, not up to a reservation block ahead of it.
    const int64_t next = last_ticks_.load() + 1;
    if (next < ticks_limit_.load()) {
      rocksdb::WriteOptions wo;
      wo.sync = true;
      db_->Put(wo, meta_, kClockReservedKey, std::to_string(next)).PermitUncheckedError();
    }
  }
  if (db_) {
    for (auto* h : data_) {
      if (h != nullptr) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    }
    if (feed_ != nullptr) db_->DestroyColumnFamilyHandle(feed_).PermitUncheckedError();
    if (meta_ != nullptr) db_->DestroyColumnFamilyHandle(meta_).PermitUncheckedError();
    if (default_ != nullptr) db_->DestroyColumnFamilyHandle(default_).PermitUncheckedError();
    db_->Close().PermitUncheckedError();
  }
}

Status StoreState::CreateTable(std::string_view name, const TableOptions& options) {
  PARTKV_RETURN_IF_ERROR(ValidateTableName(name));
  uint32_t n = options.physical_partitions;
  if (n < 1 || n > kMaxPhysicalPartitions) {
    return Status::InvalidArgument("physical_partitions is " + std::to_string(n) +
                                   "; it must be 1.." + std::to_string(kMaxPhysicalPartitions));
  }
  if (!options.profile.empty()) {
    PARTKV_RETURN_IF_ERROR(CheckProfileName(options.profile).WithContext("TableOptions::profile"));
  }
  for (const auto* scheme : {&options.partition_key_scheme, &options.row_key_scheme}) {
    if (*scheme) PARTKV_RETURN_IF_ERROR(scheme->value().Validate().WithContext("key scheme"));
  }
  PARTKV_RETURN_IF_ERROR(
      CheckTableSettings(TableSettings{options.change_feed, options.ttl_seconds}, "TableOptions"));
  port::MutexLock lock(&catalog_mu_);
  std::string key = LowerCase(name);
  if (tables_.count(key) != 0) {
    return Status::AlreadyExists("table '" + std::string(name) + "' exists");
  }
  TableRecord record;
  record.name = std::string(name);
  record.id = next_table_id_;
  record.created_ticks = NowTicks();
  record.lower_bounds = EvenLowerBounds(n);
  if (options.partition_key_scheme) record.pk_scheme = options.partition_key_scheme->ToString();
  if (options.row_key_scheme) record.rk_scheme = options.row_key_scheme->ToString();
  record.profile = options.profile;
  if (options.throttling) record.throttling = *options.throttling ? 1 : 0;
  if (options.change_feed != ChangeFeedOptions{}) {
    record.feed_set = true;
    record.feed = options.change_feed;
  }
  record.ttl_seconds = options.ttl_seconds;

  // A table is its catalog record: creating one writes one record, whatever the store holds.
  // Ids are never reused, so no key of a dropped table lies in the new table's key range.
  rocksdb::WriteBatch wb;
  wb.Put(meta_, TableKey(name), EncodeTableRecord(record));
  wb.Put(meta_, kNextTableIdKey, std::to_string(record.id + 1));
  PARTKV_RETURN_IF_ERROR(Write(/*sync=*/true, &wb, "create table '" + std::string(name) + "'"));
  ++next_table_id_;
  PARTKV_ASSIGN_OR_RETURN(
      std::shared_ptr<SharedTable> data,
      NewSharedTable(std::move(record), options.partition_key_scheme, options.row_key_scheme));
  const bool maintained = NeedsMaintenance(*data);
  tables_[key] = std::move(data);
  if (maintained) StartMaintenance();
  return Status::OK();
}

Result<std::shared_ptr<SharedTable>> StoreState::NewSharedTable(
    TableRecord record, std::optional<KeyStrategy> pk_scheme,
    std::optional<KeyStrategy> rk_scheme) const {
  const TableRecord& r = record;  // moved into the table last
  const std::string& name = r.profile.empty() ? default_profile_ : r.profile;
  auto profile = GetProfile(name);
  if (!profile.ok())
    return Status::Corruption("table '" + r.name + "': " + profile.status().ToString());
  std::vector<PhysicalPartition> parts = PartitionsOf(r);
  bool throttling = r.throttling < 0 ? default_throttling_ : r.throttling == 1;
  std::unique_ptr<Throttler> throttler;
  if (throttling && profile->model.write_rate > 0) {
    throttler = std::make_unique<Throttler>(profile->model, parts.size(), clock_source_);
  }
  PARTKV_ASSIGN_OR_RETURN(std::unique_ptr<ChangeFeed> feed, LoadFeed(r));
  auto table = std::make_shared<SharedTable>(
      std::move(record), std::move(parts), std::move(pk_scheme), std::move(rk_scheme),
      std::move(*profile), std::move(throttler), std::move(feed));
  UpdateReclaim(*table);
  return table;
}

Result<std::unique_ptr<ChangeFeed>> StoreState::LoadFeed(const TableRecord& r) const {
  rocksdb::ColumnFamilyHandle* cf = feed_;
  uint64_t trim = kFirstFeedSeq, next = kFirstFeedSeq;
  if (r.feed_set) {
    // The oldest position kept, persisted before retention moved it; the next number is above
    // the last entry stored and never below the trim, so no number is handed out twice.
    auto stored = ReadNumber(db_.get(), meta_, FeedTrimKey(r.id).c_str());
    if (stored.ok()) {
      trim = std::max<uint64_t>(trim, *stored);
    } else if (!stored.status().IsNotFound()) {
      return stored.status().WithContext("table '" + r.name + "': change feed position");
    }
    const std::string lower = FeedKey(r.id, 0);
    const std::string upper = PartitionKeyPrefix(r.id + 1, 0);
    rocksdb::Slice lower_slice(lower), upper_slice(upper);
    rocksdb::ReadOptions ro;
    ro.iterate_lower_bound = &lower_slice;
    ro.iterate_upper_bound = &upper_slice;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf));
    it->SeekToLast();
    uint64_t last = 0;
    if (it->Valid() && ParseFeedKey(it->key().ToStringView(), &last)) next = last + 1;
    if (!it->status().ok()) return FromRocks(it->status(), "table '" + r.name + "': change feed");
    next = std::max(next, trim);
  }
  return std::make_unique<ChangeFeed>(r.id, cf, r.feed, r.feed_set, trim, next);
}

Status StoreState::DropTable(std::string_view name) {
  std::shared_ptr<SharedTable> data;
  {
    port::MutexLock lock(&catalog_mu_);
    auto it = tables_.find(LowerCase(name));
    if (it == tables_.end()) {
      return Status::NotFound("table '" + std::string(name) + "' does not exist");
    }
    data = it->second;
    // One atomic write: the catalog record goes and the id is recorded as dropped. The table is
    // never half dropped; its keys, which no read reaches any more (ids are never reused), are
    // removed below and by the compaction filter (engine/local/dropped_tables.h).
    rocksdb::WriteBatch wb;
    wb.Delete(meta_, TableKey(name));
    wb.Put(meta_, DroppedKey(data->record().id), "");
    PARTKV_RETURN_IF_ERROR(Write(/*sync=*/true, &wb, "drop table '" + std::string(name) + "'"));
    dropped_->Add(data->record().id);
    dropped_->SetReclaim(data->record().id, {});
    data->MarkDropped();
    resume_cache_.Clear();  // no kept stream reads the dropped table
    tables_.erase(it);
  }
  // The SST files wholly within the table's key range go at once (most of a large table's).
  const std::string begin = TablePrefix(data->record().id);
  const std::string end = TablePrefix(data->record().id + 1);
  const rocksdb::Slice begin_slice(begin), end_slice(end);
  std::vector<rocksdb::ColumnFamilyHandle*> cfs{feed_};
  for (const auto& p : data->partitions()) {
    if (std::find(cfs.begin(), cfs.end(), p.cf) == cfs.end()) cfs.push_back(p.cf);
  }
  for (auto* cf : cfs) {
    // Best effort: what is left, flushes and compactions leave out.
    rocksdb::DeleteFilesInRange(db_.get(), cf, &begin_slice, &end_slice).PermitUncheckedError();
  }
  return Status::OK();
}

std::vector<TableInfo> StoreState::ListTables() const {
  port::MutexLock lock(&catalog_mu_);
  std::vector<TableInfo> out;
  for (const auto& [key, data] : tables_) out.push_back(InfoOf(*data));
  return out;
}

Result<std::shared_ptr<SharedTable>> StoreState::FindTable(std::string_view name) const {
  port::MutexLock lock(&catalog_mu_);
  auto it = tables_.find(LowerCase(name));
  if (it == tables_.end())
    return Status::NotFound("table '" + std::string(name) + "' does not exist");
  return it->second;
}

Status StoreState::SetAccessPolicies(SharedTable* table, std::vector<AccessPolicy> policies) {
  PARTKV_RETURN_IF_ERROR(ValidateAccessPolicies(policies));
  port::MutexLock lock(&catalog_mu_);
  if (table->dropped()) {
    return Status::NotFound("table '" + table->record().name + "' has been dropped");
  }
  TableRecord record = table->CurrentRecord();
  record.access_policies = policies;
  rocksdb::WriteOptions wo;
  wo.sync = true;
  rocksdb::Status s = db_->Put(wo, meta_, TableKey(record.name), EncodeTableRecord(record));
  if (!s.ok()) return FromRocks(s, "set the access policies of table '" + record.name + "'");
  table->set_access_policies(std::move(policies));
  return Status::OK();
}

Result<std::string> StoreState::ServiceProperties() const {
  std::string v;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), meta_, kServicePropertiesKey, &v);
  if (s.IsNotFound()) return std::string();
  if (!s.ok()) return FromRocks(s, "read the service properties");
  return v;
}

Status StoreState::SetServiceProperties(std::string_view document) {
  constexpr size_t kMaxDocument = 256 * 1024;
  if (document.size() > kMaxDocument) {
    return Status::InvalidArgument("the service properties document is " +
                                   std::to_string(document.size()) + " bytes; the limit is 262144");
  }
  rocksdb::WriteOptions wo;
  wo.sync = true;
  rocksdb::Status s =
      db_->Put(wo, meta_, kServicePropertiesKey, rocksdb::Slice(document.data(), document.size()));
  return FromRocks(s, "store the service properties");
}

Status StoreState::Flush() {
  std::vector<rocksdb::ColumnFamilyHandle*> cfs{meta_, feed_};
  cfs.insert(cfs.end(), data_.begin(), data_.end());
  return FromRocks(db_->Flush(rocksdb::FlushOptions(), cfs), "flush");
}

}  // namespace partkv::engine
