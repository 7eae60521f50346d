#include "engine/store_state.h"

#include <chrono>
#include <filesystem>
#include <random>
#include <set>

#include "engine/profile.h"
#include "engine/info_log.h"
#include "engine/rocks_status.h"
#include "engine/store_creation.h"
#include "partkv/profile.h"
#include "engine/validation.h"
#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/write_buffer_manager.h"

namespace partkv::engine {
namespace {

namespace fs = std::filesystem;

// ETag versions are reserved on disk in blocks, so issuing one costs an atomic increment and a
// synced meta write happens once per block.
constexpr uint64_t kEtagReserveBlock = 1u << 20;
constexpr uint32_t kMaxPhysicalPartitions = 1024;
constexpr size_t kMinMemoryBudget = 4u << 20;

int64_t SystemTicks() {
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  return DateTime::FromUnixMicros(micros).ticks;
}

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
  if (v.empty() || v.size() > 20) return Status::Corruption(std::string("meta ") + key + " is not a number");
  for (char c : v) {
    if (c < '0' || c > '9') return Status::Corruption(std::string("meta ") + key + " is not a number");
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

}  // namespace

Result<std::shared_ptr<StoreState>> StoreState::Open(std::string path,
                                                      const StoreOptions& options) {
  if (path.empty()) return Status::InvalidArgument("store path is empty");
  if (options.memory_budget_bytes < kMinMemoryBudget) {
    return Status::InvalidArgument("memory_budget_bytes is " +
                                   std::to_string(options.memory_budget_bytes) +
                                   "; the minimum is 4 MiB");
  }
  PARTKV_RETURN_IF_ERROR(CheckProfileName(options.profile).WithContext("StoreOptions::profile"));
  std::error_code ec;
  bool dir_exists = fs::exists(path, ec);
  if (dir_exists && !fs::is_directory(path, ec)) {
    return Status::InvalidArgument("store path '" + path + "' exists and is not a directory");
  }
  // A directory with the creation marker holds no store yet, whatever else it holds
  // (engine/store_creation.h): the creation is done again.
  bool unfinished = dir_exists && HasCreationMarker(path);
  bool has_db = dir_exists && !unfinished && fs::exists(fs::path(path) / "CURRENT", ec);
  const std::string not_a_store =
      "'" + path + "' is not a partkv store: the directory is not empty and holds no store";
  // Held from before the database is created until the store is complete (Commit).
  std::unique_ptr<StoreCreation> creation;
  if (!has_db) {
    if (!options.create_if_missing) {
      return Status::NotFound((unfinished ? "'" + path + "' holds an unfinished store creation, "
                                          : "no partkv store at '" + path + "' ") +
                              "(create_if_missing is off)");
    }
    if (dir_exists && !unfinished && !fs::is_empty(path, ec)) {
      return Status::InvalidArgument(not_a_store);
    }
    PARTKV_ASSIGN_OR_RETURN(creation, StoreCreation::Begin(path));
    if (creation == nullptr) {  // another process created the store meanwhile
      has_db = fs::exists(fs::path(path) / "CURRENT", ec);
      if (!has_db) return Status::InvalidArgument(not_a_store);
    }
  }
  if (has_db && options.error_if_exists) {
    return Status::AlreadyExists("a store exists at '" + path + "' (error_if_exists is on)");
  }

  std::shared_ptr<StoreState> st(new StoreState());
  st->path_ = path;
  st->default_profile_ = options.profile;
  st->default_throttling_ = options.throttling;
  st->clock_source_ = options.clock ? options.clock : Clock::Steady();

  // One budget: the block cache's capacity; memtables are charged to the same cache through the
  // write-buffer manager and may use at most half of it.
  auto cache = rocksdb::NewLRUCache(options.memory_budget_bytes);
  // allow_stall: writers wait for flushes rather than let memtables outgrow the budget (with
  // hundreds of column families RocksDB flushes one at a time while writes fill the others).
  auto wbm = std::make_shared<rocksdb::WriteBufferManager>(options.memory_budget_bytes / 2, cache,
                                                          /*allow_stall=*/true);

  rocksdb::BlockBasedTableOptions table_options;
  table_options.block_cache = cache;
  table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  table_options.whole_key_filtering = true;  // insert-if-absent probes whole keys
  table_options.cache_index_and_filter_blocks = true;
  table_options.pin_l0_filter_and_index_blocks_in_cache = true;
  table_options.format_version = 5;
  auto table_factory = std::shared_ptr<rocksdb::TableFactory>(
      rocksdb::NewBlockBasedTableFactory(table_options));

  rocksdb::ColumnFamilyOptions cf;
  cf.table_factory = table_factory;
  cf.write_buffer_size =
      std::clamp<size_t>(options.memory_budget_bytes / 8, size_t{1} << 20, size_t{64} << 20);
  cf.max_write_buffer_number = 3;
  // Small arena blocks: with hundreds of column families the default (write_buffer_size / 8 per
  // memtable) would charge the shared write-buffer manager into a flush storm.
  cf.arena_block_size = 64 * 1024;
  cf.memtable_prefix_bloom_size_ratio = 0.02;
  cf.memtable_whole_key_filtering = true;
  cf.level_compaction_dynamic_level_bytes = true;
  cf.compression = ChooseCompression();
  st->partition_options_ = cf;
  st->memory_budget_ = options.memory_budget_bytes;

  rocksdb::ColumnFamilyOptions meta_cf;
  meta_cf.table_factory = table_factory;
  meta_cf.write_buffer_size = 1 << 20;
  meta_cf.arena_block_size = 64 * 1024;

  rocksdb::DBOptions db_options;
  db_options.create_if_missing = !has_db;
  db_options.write_buffer_manager = wbm;
  db_options.max_background_jobs = 2;
  // RocksDB's default logger aborts the process once a write of it failed (a full disk):
  // engine/info_log.h.
  db_options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  db_options.info_log = NewInfoLog(path, db_options.info_log_level);
  db_options.avoid_unnecessary_blocking_io = true;
  db_options.listeners.push_back(st->recovery_);

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

  // Partitions per table, from the column family names, for each table's options.
  std::map<uint32_t, uint32_t> partitions_of;
  for (const auto& n : names) {
    uint32_t table_id, index;
    if (ParsePartitionColumnFamilyName(n, &table_id, &index)) ++partitions_of[table_id];
  }
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const auto& n : names) {
    if (n == kMetaColumnFamily) {
      descriptors.emplace_back(n, meta_cf);
    } else if (n == rocksdb::kDefaultColumnFamilyName) {
      descriptors.emplace_back(n, meta_cf);
    } else {
      uint32_t table_id = 0, index = 0;
      ParsePartitionColumnFamilyName(n, &table_id, &index);
      descriptors.emplace_back(n, st->PartitionOptions(std::max<uint32_t>(1, partitions_of[table_id])));
    }
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  // Handles not yet owned by the catalog are destroyed on every early return, before the
  // database closes (RocksDB requires every handle gone first).
  struct HandleGuard {
    StoreState* st;
    std::vector<rocksdb::ColumnFamilyHandle*>* handles;
    ~HandleGuard() {
      for (auto* h : *handles) {
        if (h != nullptr) st->db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
      }
    }
  } guard{st.get(), &handles};
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(db_options, path, descriptors, &handles, &raw);
  if (!s.ok()) return FromRocks(s, "open store '" + path + "'");
  st->db_.reset(raw);
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == kMetaColumnFamily) {
      st->meta_ = handles[i];
      handles[i] = nullptr;
    } else if (names[i] == rocksdb::kDefaultColumnFamilyName) {
      st->default_ = handles[i];
      handles[i] = nullptr;
    }
  }

  if (!has_db) {
    s = st->db_->CreateColumnFamily(meta_cf, kMetaColumnFamily, &st->meta_);
    if (!s.ok()) return FromRocks(s, "create meta column family");
    rocksdb::WriteBatch wb;
    wb.Put(st->meta_, kFormatKey, std::to_string(kStoreFormatVersion));
    wb.Put(st->meta_, kSecretKey, RandomBytes(32));
    wb.Put(st->meta_, kEtagReservedKey, "1");
    wb.Put(st->meta_, kNextTableIdKey, "1");
    rocksdb::WriteOptions wo;
    wo.sync = true;
    s = st->db_->Write(wo, &wb);
    if (!s.ok()) return FromRocks(s, "initialise store");
    PARTKV_RETURN_IF_ERROR(creation->Commit().WithContext("create store '" + path + "'"));
  }

  auto format = ReadNumber(st->db_.get(), st->meta_, kFormatKey);
  if (!format.ok()) {
    return Status::InvalidArgument("'" + path + "' is not a partkv store: no format version (" +
                                   format.status().ToString() + ")");
  }
  if (*format != kStoreFormatVersion) {
    return Status::InvalidArgument(
        "store '" + path + "' has on-disk format version " + std::to_string(*format) +
        "; this build of partkv reads only format version " +
        std::to_string(kStoreFormatVersion) + " (docs/format.md)");
  }
  s = st->db_->Get(rocksdb::ReadOptions(), st->meta_, kSecretKey, &st->secret_);
  if (!s.ok() || st->secret_.size() != 32) return Status::Corruption("store secret missing or malformed");
  auto reserved = ReadNumber(st->db_.get(), st->meta_, kEtagReservedKey);
  if (!reserved.ok()) return reserved.status().WithContext("store meta");
  // Every version below the reserved mark may have been issued before a crash: start above it.
  st->next_etag_ = *reserved;
  st->etag_limit_ = *reserved;
  auto next_id = ReadNumber(st->db_.get(), st->meta_, kNextTableIdKey);
  if (!next_id.ok()) return next_id.status().WithContext("store meta");
  st->next_table_id_ = static_cast<uint32_t>(*next_id);

  PARTKV_RETURN_IF_ERROR(st->LoadCatalog(&handles, names));
  return st;
}

Status StoreState::LoadCatalog(std::vector<rocksdb::ColumnFamilyHandle*>* handles,
                               const std::vector<std::string>& names) {
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < names.size(); ++i) {
    if ((*handles)[i] != nullptr) by_name[names[i]] = i;
  }
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), meta_));
  for (it->Seek(kTablePrefix); it->Valid() && it->key().starts_with(kTablePrefix); it->Next()) {
    auto record = DecodeTableRecord(it->value().ToStringView());
    if (!record.ok()) return record.status();
    std::vector<PhysicalPartition> parts;
    for (uint32_t i = 0; i < record->lower_bounds.size(); ++i) {
      auto found = by_name.find(PartitionColumnFamilyName(record->id, i));
      if (found == by_name.end()) {
        return Status::Corruption("table '" + record->name + "' lacks its column family " +
                                  PartitionColumnFamilyName(record->id, i));
      }
      parts.push_back(PhysicalPartition{(*handles)[found->second], record->lower_bounds[i]});
      (*handles)[found->second] = nullptr;
      by_name.erase(found);
    }
    std::optional<KeyStrategy> pk_scheme, rk_scheme;
    for (auto [text, out] : {std::pair{&record->pk_scheme, &pk_scheme},
                             std::pair{&record->rk_scheme, &rk_scheme}}) {
      if (text->empty()) continue;
      auto parsed = KeyStrategy::Parse(*text);
      if (!parsed.ok()) {
        for (auto& p : parts) db_->DestroyColumnFamilyHandle(p.cf).PermitUncheckedError();
        return Status::Corruption("table '" + record->name + "' has an unreadable key scheme: " +
                                  parsed.status().ToString());
      }
      *out = std::move(*parsed);
    }
    std::string key = LowerCase(record->name);
    auto data = std::make_shared<TableData>(db_.get(), std::move(*record), std::move(parts));
    data->set_schemes(std::move(pk_scheme), std::move(rk_scheme));
    PARTKV_RETURN_IF_ERROR(ConfigureTable(data.get()));
    tables_[key] = std::move(data);
  }
  if (!it->status().ok()) return FromRocks(it->status(), "read catalog");
  // Column families no table owns are left by a create or drop that crashed midway: drop them.
  std::vector<rocksdb::ColumnFamilyHandle*> orphans;
  for (auto& [name, index] : by_name) {
    orphans.push_back((*handles)[index]);
    (*handles)[index] = nullptr;
  }
  if (!orphans.empty()) {
    rocksdb::Status s = db_->DropColumnFamilies(orphans);
    for (auto* h : orphans) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    if (!s.ok()) return FromRocks(s, "drop orphan column families");
  }
  return Status::OK();
}

StoreState::~StoreState() {
  resume_cache_.Clear();  // the kept streams' iterators and snapshots first
  tables_.clear();  // destroys every partition handle while the database is open
  if (db_) {
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
  std::lock_guard<std::mutex> lock(catalog_mu_);
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

  std::vector<std::string> cf_names;
  for (uint32_t i = 0; i < n; ++i) cf_names.push_back(PartitionColumnFamilyName(record.id, i));
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  // One call for all of them: creating column families one by one is quadratic in their number.
  rocksdb::Status s = db_->CreateColumnFamilies(PartitionOptions(n), cf_names, &handles);
  if (!s.ok()) {
    for (auto* h : handles) {
      db_->DropColumnFamily(h).PermitUncheckedError();
      db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    }
    return FromRocks(s, "create table '" + std::string(name) + "'");
  }
  rocksdb::WriteBatch wb;
  wb.Put(meta_, TableKey(name), EncodeTableRecord(record));
  wb.Put(meta_, kNextTableIdKey, std::to_string(record.id + 1));
  rocksdb::WriteOptions wo;
  wo.sync = true;
  s = db_->Write(wo, &wb);
  if (!s.ok()) {
    db_->DropColumnFamilies(handles).PermitUncheckedError();
    for (auto* h : handles) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    return FromRocks(s, "create table '" + std::string(name) + "'");
  }
  ++next_table_id_;
  std::vector<PhysicalPartition> parts;
  for (uint32_t i = 0; i < n; ++i) parts.push_back({handles[i], record.lower_bounds[i]});
  auto data = std::make_shared<TableData>(db_.get(), std::move(record), std::move(parts));
  data->set_schemes(options.partition_key_scheme, options.row_key_scheme);
  PARTKV_RETURN_IF_ERROR(ConfigureTable(data.get()));
  tables_[key] = std::move(data);
  return Status::OK();
}

Status StoreState::ConfigureTable(TableData* data) {
  const TableRecord& r = data->record();
  const std::string& name = r.profile.empty() ? default_profile_ : r.profile;
  auto profile = GetProfile(name);
  if (!profile.ok()) return Status::Corruption("table '" + r.name + "': " + profile.status().ToString());
  bool throttling = r.throttling < 0 ? default_throttling_ : r.throttling == 1;
  std::unique_ptr<Throttler> throttler;
  if (throttling && profile->model.write_rate > 0) {
    throttler = std::make_unique<Throttler>(profile->model, data->partitions().size(), clock_source_);
  }
  data->Configure(std::move(*profile), std::move(throttler));
  return Status::OK();
}

rocksdb::ColumnFamilyOptions StoreState::PartitionOptions(uint32_t partitions) const {
  rocksdb::ColumnFamilyOptions cf = partition_options_;
  // A table's memtable blooms together take at most 1/16 of the budget (and 2% of a memtable each).
  double per_partition = static_cast<double>(memory_budget_) / 16 / partitions;
  cf.memtable_prefix_bloom_size_ratio =
      std::min(0.02, per_partition / static_cast<double>(cf.write_buffer_size));
  return cf;
}

Status StoreState::DropTable(std::string_view name) {
  std::lock_guard<std::mutex> lock(catalog_mu_);
  auto it = tables_.find(LowerCase(name));
  if (it == tables_.end()) return Status::NotFound("table '" + std::string(name) + "' does not exist");
  rocksdb::WriteOptions wo;
  wo.sync = true;
  // The catalog record goes first: a crash after it leaves orphan column families that the next
  // open drops; the table is never half visible.
  rocksdb::Status s = db_->Delete(wo, meta_, TableKey(name));
  if (!s.ok()) return FromRocks(s, "drop table '" + std::string(name) + "'");
  std::shared_ptr<TableData> data = it->second;
  data->MarkDropped();
  resume_cache_.Clear();  // no kept stream reads the column families dropped below
  tables_.erase(it);
  std::vector<rocksdb::ColumnFamilyHandle*> cfs;
  for (const auto& p : data->partitions()) cfs.push_back(p.cf);
  s = db_->DropColumnFamilies(cfs);
  return FromRocks(s, "drop the column families of table '" + std::string(name) + "'");
}

std::vector<TableInfo> StoreState::ListTables() const {
  std::lock_guard<std::mutex> lock(catalog_mu_);
  std::vector<TableInfo> out;
  for (const auto& [key, data] : tables_) {
    const TableRecord& r = data->record();
    out.push_back(TableInfo{r.name, r.id, static_cast<uint32_t>(r.lower_bounds.size()),
                            DateTime{r.created_ticks}, r.pk_scheme, r.rk_scheme,
                            data->profile().name, data->throttler() != nullptr});
  }
  return out;
}

Result<std::shared_ptr<TableData>> StoreState::FindTable(std::string_view name) const {
  std::lock_guard<std::mutex> lock(catalog_mu_);
  auto it = tables_.find(LowerCase(name));
  if (it == tables_.end()) return Status::NotFound("table '" + std::string(name) + "' does not exist");
  return it->second;
}

Status StoreState::SetAccessPolicies(TableData* table, std::vector<AccessPolicy> policies) {
  PARTKV_RETURN_IF_ERROR(ValidateAccessPolicies(policies));
  std::lock_guard<std::mutex> lock(catalog_mu_);
  if (table->dropped()) {
    return Status::NotFound("table '" + table->record().name + "' has been dropped");
  }
  TableRecord record = table->record();
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
  constexpr size_t kMaxDocument = 64 * 1024;
  if (document.size() > kMaxDocument) {
    return Status::InvalidArgument("the service properties document is " +
                                   std::to_string(document.size()) +
                                   " bytes; the limit is 65536");
  }
  rocksdb::WriteOptions wo;
  wo.sync = true;
  rocksdb::Status s = db_->Put(wo, meta_, kServicePropertiesKey,
                               rocksdb::Slice(document.data(), document.size()));
  return FromRocks(s, "store the service properties");
}

Status StoreState::ReserveEtags(uint64_t needed) {
  uint64_t limit = std::max(etag_limit_.load(), needed) + kEtagReserveBlock;
  rocksdb::WriteOptions wo;
  wo.sync = true;
  rocksdb::Status s = db_->Put(wo, meta_, kEtagReservedKey, std::to_string(limit));
  if (!s.ok()) return FromRocks(s, "reserve ETag versions");
  etag_limit_.store(limit, std::memory_order_release);
  return Status::OK();
}

Result<uint64_t> StoreState::NextEtagVersions(uint64_t n) {
  uint64_t v = next_etag_.fetch_add(n, std::memory_order_relaxed);
  if (v + n <= etag_limit_.load(std::memory_order_acquire)) return v;
  std::lock_guard<std::mutex> lock(etag_mu_);
  if (v + n > etag_limit_.load(std::memory_order_acquire)) {
    PARTKV_RETURN_IF_ERROR(ReserveEtags(v + n));
  }
  return v;
}

int64_t StoreState::NowTicks() {
  int64_t now = clock_ ? clock_() : SystemTicks();
  int64_t last = last_ticks_.load(std::memory_order_relaxed);
  while (now > last && !last_ticks_.compare_exchange_weak(last, now, std::memory_order_relaxed)) {
  }
  return std::max(now, last);
}

void StoreState::SetClockForTesting(std::function<int64_t()> clock) { clock_ = std::move(clock); }

Status StoreState::Flush() {
  std::vector<rocksdb::ColumnFamilyHandle*> cfs{meta_};
  std::vector<std::shared_ptr<TableData>> keep;
  {
    std::lock_guard<std::mutex> lock(catalog_mu_);
    for (const auto& [key, data] : tables_) {
      keep.push_back(data);
      for (const auto& p : data->partitions()) cfs.push_back(p.cf);
    }
  }
  return FromRocks(db_->Flush(rocksdb::FlushOptions(), cfs), "flush");
}

}  // namespace partkv::engine
