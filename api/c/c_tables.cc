// partkv/c.h, second half: options, stores, tables, batches, queries, statistics, access
// policies and the bulk writer.

#include <chrono>
#include <cstring>
#include <optional>

#include "api/c/c_internal.h"

using namespace partkv;         // NOLINT(build/namespaces): the C functions wrap partkv's API
using namespace partkv::c_api;  // NOLINT(build/namespaces)

struct partkv_store_options_t {
  StoreOptions options;
};
struct partkv_table_options_t {
  TableOptions options;
};
struct partkv_write_options_t {
  WriteOptions options;
};
struct partkv_store_t {
  Store store;
};
struct partkv_table_t {
  Table table;
};
struct partkv_table_info_t {
  TableInfo info;
};
struct partkv_table_list_t {
  std::vector<partkv_table_info_t> tables;
};
struct partkv_batch_t {
  Batch batch;
  // What the last successful submit assigned, one per operation; cleared by any change.
  std::vector<WriteResult> results;
};
struct partkv_query_t {
  Query query;
};
struct partkv_page_t {
  Page page;
};
struct partkv_table_stats_t {
  TableStats stats;
};
struct partkv_table_census_t {
  TableCensus census;
};
struct partkv_access_policies_t {
  std::vector<AccessPolicy> policies;
};
struct partkv_bulk_writer_options_t {
  BulkWriteOptions options;
};
struct partkv_bulk_writer_t {
  BulkWriter writer;
};

namespace {

const WriteOptions& Writing(const partkv_write_options_t* options) {
  static const WriteOptions kDefaults;
  return options == nullptr ? kDefaults : options->options;
}

std::optional<Bound> MakeBound(const char* key, size_t length, int inclusive) {
  if (key == nullptr) return std::nullopt;
  return Bound{std::string(key, length), inclusive != 0};
}

// Runs a single write and, on success, gives `entity` the ETag and Timestamp it was written with.
template <typename Write>
partkv_status_t* WriteEntity(partkv_table_t* table, partkv_entity_t* entity, Write&& write) {
  if (table == nullptr) return NullArgument("table");
  if (entity == nullptr) return NullArgument("entity");
  Result<WriteResult> written = write(*Unwrap(entity));
  if (!written.ok()) return Wrap(written.status());
  Unwrap(entity)->set_etag(std::move(written->etag));
  Unwrap(entity)->set_timestamp(written->timestamp);
  return nullptr;
}

void CopyStats(const PartitionStats& in, partkv_partition_stats_t* out) {
  out->index = in.index;
  out->reads = in.reads;
  out->writes = in.writes;
  out->bytes_read = in.bytes_read;
  out->bytes_written = in.bytes_written;
  out->throttled = in.throttled;
  out->retry_wait_micros = in.retry_wait_micros;
}

void CopyCensus(const PartitionCensus& in, partkv_partition_census_t* out) {
  out->index = in.index;
  out->hash_lower = in.hash_lower;
  out->hash_upper = in.hash_upper;
  out->entities = in.entities;
  out->bytes = in.bytes;
  out->logical_partitions = in.logical_partitions;
  out->sst_bytes = in.sst_bytes;
}

}  // namespace

extern "C" {

// ---- Options ----

partkv_store_options_t* partkv_store_options_create(void) { return new partkv_store_options_t; }
void partkv_store_options_destroy(partkv_store_options_t* options) { delete options; }

void partkv_store_options_set_create_if_missing(partkv_store_options_t* options, int value) {
  if (options != nullptr) options->options.create_if_missing = value != 0;
}
void partkv_store_options_set_error_if_exists(partkv_store_options_t* options, int value) {
  if (options != nullptr) options->options.error_if_exists = value != 0;
}
void partkv_store_options_set_memory_budget(partkv_store_options_t* options, size_t bytes) {
  if (options != nullptr) options->options.memory_budget_bytes = bytes;
}
void partkv_store_options_set_profile(partkv_store_options_t* options, const char* name,
                                      size_t length) {
  if (options != nullptr) options->options.profile = std::string(View(name, length));
}
void partkv_store_options_set_throttling(partkv_store_options_t* options, int value) {
  if (options != nullptr) options->options.throttling = value != 0;
}
void partkv_store_options_set_write_stall_timeout_ms(partkv_store_options_t* options,
                                                     int64_t milliseconds) {
  if (options != nullptr) {
    options->options.write_stall_timeout = std::chrono::milliseconds(milliseconds);
  }
}
void partkv_store_options_set_scan_threads(partkv_store_options_t* options, size_t threads) {
  if (options != nullptr) options->options.scan_threads = threads;
}
void partkv_store_options_set_remote_ca_file(partkv_store_options_t* options, const char* path,
                                             size_t length) {
  if (options != nullptr) options->options.remote.ca_file = std::string(View(path, length));
}
void partkv_store_options_set_remote_timeouts_ms(partkv_store_options_t* options,
                                                 int64_t connect, int64_t request) {
  if (options == nullptr) return;
  options->options.remote.connect_timeout = std::chrono::milliseconds(connect);
  options->options.remote.request_timeout = std::chrono::milliseconds(request);
}
void partkv_store_options_set_remote_connections(partkv_store_options_t* options,
                                                 size_t max_connections, size_t fan_out) {
  if (options == nullptr) return;
  options->options.remote.max_connections = max_connections;
  options->options.remote.fan_out = fan_out;
}
void partkv_store_options_set_remote_retry(partkv_store_options_t* options, int max_attempts,
                                           int64_t initial_backoff_ms, int64_t max_backoff_ms,
                                           int64_t max_total_ms) {
  if (options == nullptr) return;
  RetryOptions& retry = options->options.remote.retry;
  retry.max_attempts = max_attempts;
  retry.initial_backoff = std::chrono::milliseconds(initial_backoff_ms);
  retry.max_backoff = std::chrono::milliseconds(max_backoff_ms);
  retry.max_total = std::chrono::milliseconds(max_total_ms);
}

partkv_table_options_t* partkv_table_options_create(void) { return new partkv_table_options_t; }
void partkv_table_options_destroy(partkv_table_options_t* options) { delete options; }
void partkv_table_options_set_physical_partitions(partkv_table_options_t* options,
                                                  uint32_t count) {
  if (options != nullptr) options->options.physical_partitions = count;
}
void partkv_table_options_set_partition_key_scheme(partkv_table_options_t* options,
                                                   const partkv_key_strategy_t* strategy) {
  if (options == nullptr) return;
  options->options.partition_key_scheme =
      strategy == nullptr ? std::nullopt : std::optional<KeyStrategy>(strategy->strategy);
}
void partkv_table_options_set_row_key_scheme(partkv_table_options_t* options,
                                             const partkv_key_strategy_t* strategy) {
  if (options == nullptr) return;
  options->options.row_key_scheme =
      strategy == nullptr ? std::nullopt : std::optional<KeyStrategy>(strategy->strategy);
}
void partkv_table_options_set_profile(partkv_table_options_t* options, const char* name,
                                      size_t length) {
  if (options != nullptr) options->options.profile = std::string(View(name, length));
}
void partkv_table_options_set_throttling(partkv_table_options_t* options, int value) {
  if (options != nullptr) options->options.throttling = value != 0;
}

partkv_write_options_t* partkv_write_options_create(void) { return new partkv_write_options_t; }
void partkv_write_options_destroy(partkv_write_options_t* options) { delete options; }
void partkv_write_options_set_sync(partkv_write_options_t* options, int value) {
  if (options != nullptr) options->options.sync = value != 0;
}

// ---- Stores ----

partkv_status_t* partkv_store_open(const char* location, size_t length,
                                   const partkv_store_options_t* options,
                                   partkv_store_t** store) {
  if (store == nullptr) return NullArgument("store");
  static const StoreOptions kDefaults;
  Result<Store> opened =
      Store::Open(View(location, length), options == nullptr ? kDefaults : options->options);
  if (!opened.ok()) return Wrap(opened.status());
  *store = new partkv_store_t{std::move(*opened)};
  return nullptr;
}

void partkv_store_close(partkv_store_t* store) { delete store; }

int partkv_is_remote_location(const char* location, size_t length) {
  return Store::IsRemoteLocation(View(location, length)) ? 1 : 0;
}

char* partkv_redact_location(const char* location, size_t length, size_t* result_length) {
  return Copy(Store::RedactLocation(View(location, length)), result_length);
}

const char* partkv_store_path(const partkv_store_t* store, size_t* length) {
  static const std::string kEmpty;
  return Lend(store == nullptr ? kEmpty : store->store.path(), length);
}

const char* partkv_store_backend(const partkv_store_t* store) {
  if (store == nullptr) return "";
  return store->store.capabilities().backend == "remote" ? "remote" : "local";
}

int partkv_store_has_capability(const partkv_store_t* store, const char* name, size_t length) {
  if (store == nullptr) return 0;
  const StoreCapabilities& c = store->store.capabilities();
  std::string_view n = View(name, length);
  bool has = n == "descending-scans"       ? c.descending_scans
             : n == "ordered-scans"        ? c.ordered_scans
             : n == "scan-budget"          ? c.scan_budget
             : n == "key-scheme-catalog"   ? c.key_scheme_catalog
             : n == "physical-partitions"  ? c.physical_partitions
             : n == "throttling-emulation" ? c.throttling_emulation
             : n == "census"               ? c.census
             : n == "engine-statistics"    ? c.engine_statistics
             : n == "storage-engine"       ? c.storage_engine
             : n == "access-policies"      ? c.access_policies
             : n == "service-properties"   ? c.service_properties
                                           : false;
  return has ? 1 : 0;
}

partkv_status_t* partkv_store_create_table(partkv_store_t* store, const char* name,
                                           size_t length, const partkv_table_options_t* options) {
  if (store == nullptr) return NullArgument("store");
  static const TableOptions kDefaults;
  return Wrap(store->store.CreateTable(View(name, length),
                                       options == nullptr ? kDefaults : options->options));
}

partkv_status_t* partkv_store_drop_table(partkv_store_t* store, const char* name, size_t length) {
  if (store == nullptr) return NullArgument("store");
  return Wrap(store->store.DropTable(View(name, length)));
}

partkv_status_t* partkv_store_list_tables(const partkv_store_t* store,
                                          partkv_table_list_t** tables) {
  if (store == nullptr) return NullArgument("store");
  if (tables == nullptr) return NullArgument("tables");
  Result<std::vector<TableInfo>> listed = store->store.ListTables();
  if (!listed.ok()) return Wrap(listed.status());
  auto* list = new partkv_table_list_t;
  list->tables.reserve(listed->size());
  for (TableInfo& info : *listed) list->tables.push_back(partkv_table_info_t{std::move(info)});
  *tables = list;
  return nullptr;
}

partkv_status_t* partkv_store_open_table(const partkv_store_t* store, const char* name,
                                         size_t length,
                                         const partkv_key_strategy_t* partition_key_scheme,
                                         const partkv_key_strategy_t* row_key_scheme,
                                         partkv_table_t** table) {
  if (store == nullptr) return NullArgument("store");
  if (table == nullptr) return NullArgument("table");
  OpenTableOptions options;
  if (partition_key_scheme != nullptr) options.partition_key_scheme = partition_key_scheme->strategy;
  if (row_key_scheme != nullptr) options.row_key_scheme = row_key_scheme->strategy;
  Result<Table> opened = store->store.OpenTable(View(name, length), options);
  if (!opened.ok()) return Wrap(opened.status());
  *table = new partkv_table_t{std::move(*opened)};
  return nullptr;
}

partkv_status_t* partkv_store_service_properties(const partkv_store_t* store, char** document,
                                                 size_t* length) {
  if (store == nullptr) return NullArgument("store");
  if (document == nullptr) return NullArgument("document");
  Result<std::string> properties = store->store.ServiceProperties();
  if (!properties.ok()) return Wrap(properties.status());
  *document = Copy(*properties, length);
  return nullptr;
}

partkv_status_t* partkv_store_set_service_properties(partkv_store_t* store,
                                                     const char* document, size_t length) {
  if (store == nullptr) return NullArgument("store");
  return Wrap(store->store.SetServiceProperties(View(document, length)));
}

partkv_status_t* partkv_store_flush(partkv_store_t* store) {
  if (store == nullptr) return NullArgument("store");
  return Wrap(store->store.Flush());
}

partkv_status_t* partkv_store_await_background_work(partkv_store_t* store, int64_t timeout_ms) {
  if (store == nullptr) return NullArgument("store");
  return Wrap(store->store.AwaitBackgroundWork(std::chrono::milliseconds(timeout_ms)));
}

partkv_status_t* partkv_store_await_writable(partkv_store_t* store, int64_t timeout_ms) {
  if (store == nullptr) return NullArgument("store");
  return Wrap(store->store.AwaitWritable(std::chrono::milliseconds(timeout_ms)));
}

size_t partkv_table_list_count(const partkv_table_list_t* tables) {
  return tables == nullptr ? 0 : tables->tables.size();
}

const partkv_table_info_t* partkv_table_list_get(const partkv_table_list_t* tables,
                                                 size_t index) {
  if (tables == nullptr || index >= tables->tables.size()) return nullptr;
  return &tables->tables[index];
}

void partkv_table_list_destroy(partkv_table_list_t* tables) { delete tables; }

// ---- Table facts ----

const char* partkv_table_info_name(const partkv_table_info_t* info, size_t* length) {
  static const std::string kEmpty;
  return Lend(info == nullptr ? kEmpty : info->info.name, length);
}
uint32_t partkv_table_info_physical_partitions(const partkv_table_info_t* info) {
  return info == nullptr ? 0 : info->info.physical_partitions;
}
int64_t partkv_table_info_created(const partkv_table_info_t* info) {
  return info == nullptr ? 0 : info->info.created.ticks;
}
const char* partkv_table_info_partition_key_scheme(const partkv_table_info_t* info,
                                                   size_t* length) {
  static const std::string kEmpty;
  return Lend(info == nullptr ? kEmpty : info->info.partition_key_scheme, length);
}
const char* partkv_table_info_row_key_scheme(const partkv_table_info_t* info, size_t* length) {
  static const std::string kEmpty;
  return Lend(info == nullptr ? kEmpty : info->info.row_key_scheme, length);
}
const char* partkv_table_info_profile(const partkv_table_info_t* info, size_t* length) {
  static const std::string kEmpty;
  return Lend(info == nullptr ? kEmpty : info->info.profile, length);
}
int partkv_table_info_throttling(const partkv_table_info_t* info) {
  return info != nullptr && info->info.throttling ? 1 : 0;
}
void partkv_table_info_destroy(partkv_table_info_t* info) { delete info; }

// ---- Tables ----

void partkv_table_close(partkv_table_t* table) { delete table; }

const char* partkv_table_name(const partkv_table_t* table, size_t* length) {
  static const std::string kEmpty;
  return Lend(table == nullptr ? kEmpty : table->table.name(), length);
}

partkv_table_info_t* partkv_table_info(const partkv_table_t* table) {
  if (table == nullptr) return nullptr;
  return new partkv_table_info_t{table->table.info()};
}

partkv_status_t* partkv_table_insert(partkv_table_t* table, partkv_entity_t* entity,
                                     const partkv_write_options_t* options) {
  return WriteEntity(table, entity,
                     [&](const Entity& e) { return table->table.Insert(e, Writing(options)); });
}

partkv_status_t* partkv_table_replace(partkv_table_t* table, partkv_entity_t* entity,
                                      const char* if_match, size_t if_match_length,
                                      const partkv_write_options_t* options) {
  return WriteEntity(table, entity, [&](const Entity& e) {
    return table->table.Replace(e, MakeIfMatch(if_match, if_match_length), Writing(options));
  });
}

partkv_status_t* partkv_table_merge(partkv_table_t* table, partkv_entity_t* entity,
                                    const char* if_match, size_t if_match_length,
                                    const partkv_write_options_t* options) {
  return WriteEntity(table, entity, [&](const Entity& e) {
    return table->table.Merge(e, MakeIfMatch(if_match, if_match_length), Writing(options));
  });
}

partkv_status_t* partkv_table_insert_or_replace(partkv_table_t* table, partkv_entity_t* entity,
                                                const partkv_write_options_t* options) {
  return WriteEntity(table, entity, [&](const Entity& e) {
    return table->table.InsertOrReplace(e, Writing(options));
  });
}

partkv_status_t* partkv_table_insert_or_merge(partkv_table_t* table, partkv_entity_t* entity,
                                              const partkv_write_options_t* options) {
  return WriteEntity(table, entity, [&](const Entity& e) {
    return table->table.InsertOrMerge(e, Writing(options));
  });
}

partkv_status_t* partkv_table_delete(partkv_table_t* table, const char* partition_key,
                                     size_t partition_key_length, const char* row_key,
                                     size_t row_key_length, const char* if_match,
                                     size_t if_match_length,
                                     const partkv_write_options_t* options) {
  if (table == nullptr) return NullArgument("table");
  return Wrap(table->table.Delete(View(partition_key, partition_key_length),
                                  View(row_key, row_key_length),
                                  MakeIfMatch(if_match, if_match_length), Writing(options)));
}

partkv_status_t* partkv_table_get(const partkv_table_t* table, const char* partition_key,
                                  size_t partition_key_length, const char* row_key,
                                  size_t row_key_length, partkv_entity_t** entity) {
  if (table == nullptr) return NullArgument("table");
  if (entity == nullptr) return NullArgument("entity");
  Result<Entity> got =
      table->table.Get(View(partition_key, partition_key_length), View(row_key, row_key_length));
  if (!got.ok()) return Wrap(got.status());
  *entity = WrapEntity(new Entity(std::move(*got)));
  return nullptr;
}

partkv_status_t* partkv_table_get_by_attributes(const partkv_table_t* table,
                                                const partkv_entity_t* attributes,
                                                partkv_entity_t** entity) {
  if (table == nullptr) return NullArgument("table");
  if (attributes == nullptr) return NullArgument("attributes");
  if (entity == nullptr) return NullArgument("entity");
  Result<Entity> got = table->table.GetByAttributes(*Unwrap(attributes));
  if (!got.ok()) return Wrap(got.status());
  *entity = WrapEntity(new Entity(std::move(*got)));
  return nullptr;
}

partkv_status_t* partkv_table_compute_keys(const partkv_table_t* table,
                                           const partkv_entity_t* entity, partkv_op_t op,
                                           partkv_entity_t** result) {
  if (table == nullptr) return NullArgument("table");
  if (entity == nullptr) return NullArgument("entity");
  if (result == nullptr) return NullArgument("result");
  if (op < PARTKV_OP_INSERT || op > PARTKV_OP_DELETE) {
    return Wrap(Status::InvalidArgument("unknown operation " + std::to_string(op)));
  }
  Result<Entity> computed = table->table.ComputeKeys(*Unwrap(entity), static_cast<OpType>(op));
  if (!computed.ok()) return Wrap(computed.status());
  *result = WrapEntity(new Entity(std::move(*computed)));
  return nullptr;
}

uint32_t partkv_table_physical_partition_of(const partkv_table_t* table,
                                            const char* partition_key, size_t length) {
  return table == nullptr ? 0 : table->table.PhysicalPartitionOf(View(partition_key, length));
}

// ---- Batches ----

partkv_batch_t* partkv_batch_create(void) { return new partkv_batch_t; }
void partkv_batch_destroy(partkv_batch_t* batch) { delete batch; }
void partkv_batch_clear(partkv_batch_t* batch) {
  if (batch == nullptr) return;
  batch->batch.Clear();
  batch->results.clear();
}
size_t partkv_batch_size(const partkv_batch_t* batch) {
  return batch == nullptr ? 0 : batch->batch.size();
}

void partkv_batch_add(partkv_batch_t* batch, partkv_op_t op, const partkv_entity_t* entity,
                      const char* if_match, size_t if_match_length) {
  if (batch == nullptr || entity == nullptr) return;
  batch->results.clear();
  // An unknown operation is recorded as it is: Submit names it (InvalidArgument, its index).
  batch->batch.Add(static_cast<OpType>(op), *Unwrap(entity),
                   MakeIfMatch(if_match, if_match_length));
}

void partkv_batch_add_delete(partkv_batch_t* batch, const char* partition_key,
                             size_t partition_key_length, const char* row_key,
                             size_t row_key_length, const char* if_match,
                             size_t if_match_length) {
  if (batch == nullptr) return;
  batch->results.clear();
  batch->batch.Delete(std::string(View(partition_key, partition_key_length)),
                      std::string(View(row_key, row_key_length)),
                      MakeIfMatch(if_match, if_match_length));
}

partkv_status_t* partkv_table_submit(partkv_table_t* table, partkv_batch_t* batch,
                                     const partkv_write_options_t* options) {
  if (table == nullptr) return NullArgument("table");
  if (batch == nullptr) return NullArgument("batch");
  batch->results.clear();
  for (size_t i = 0; i < batch->batch.size(); ++i) {
    auto op = static_cast<uint8_t>(batch->batch.ops()[i].type);
    if (op > static_cast<uint8_t>(OpType::kDelete)) {
      return Wrap(Status::InvalidArgument("unknown operation " + std::to_string(op))
                      .WithFailedOp(static_cast<int>(i)));
    }
  }
  Result<std::vector<WriteResult>> written = table->table.Submit(batch->batch, Writing(options));
  if (!written.ok()) return Wrap(written.status());
  batch->results = std::move(*written);
  return nullptr;
}

const char* partkv_batch_etag(const partkv_batch_t* batch, size_t index, size_t* length) {
  static const std::string kEmpty;
  if (batch == nullptr || index >= batch->results.size()) return Lend(kEmpty, length);
  return Lend(batch->results[index].etag, length);
}

int64_t partkv_batch_timestamp(const partkv_batch_t* batch, size_t index) {
  if (batch == nullptr || index >= batch->results.size()) return 0;
  return batch->results[index].timestamp.ticks;
}

// ---- Queries ----

partkv_query_t* partkv_query_create(void) { return new partkv_query_t; }
void partkv_query_destroy(partkv_query_t* query) { delete query; }

void partkv_query_set_partition_key(partkv_query_t* query, const char* key, size_t length) {
  if (query == nullptr) return;
  query->query.partition_key = std::string(View(key, length));
  query->query.partition_lower.reset();
  query->query.partition_upper.reset();
}

void partkv_query_set_partition_range(partkv_query_t* query, const char* lower,
                                      size_t lower_length, int lower_inclusive,
                                      const char* upper, size_t upper_length,
                                      int upper_inclusive) {
  if (query == nullptr) return;
  query->query.partition_key.reset();
  query->query.partition_lower = MakeBound(lower, lower_length, lower_inclusive);
  query->query.partition_upper = MakeBound(upper, upper_length, upper_inclusive);
}

void partkv_query_set_row_range(partkv_query_t* query, const char* lower, size_t lower_length,
                                int lower_inclusive, const char* upper, size_t upper_length,
                                int upper_inclusive) {
  if (query == nullptr) return;
  query->query.row_lower = MakeBound(lower, lower_length, lower_inclusive);
  query->query.row_upper = MakeBound(upper, upper_length, upper_inclusive);
}

void partkv_query_set_row_prefix(partkv_query_t* query, const char* prefix, size_t length) {
  if (query == nullptr) return;
  if (prefix == nullptr) {
    query->query.row_prefix.reset();
  } else {
    query->query.row_prefix = std::string(prefix, length);
  }
}

void partkv_query_set_filter(partkv_query_t* query, const char* filter, size_t length) {
  if (query != nullptr) query->query.filter = std::string(View(filter, length));
}

void partkv_query_add_select(partkv_query_t* query, const char* name, size_t length) {
  if (query != nullptr) query->query.select.emplace_back(View(name, length));
}

void partkv_query_clear_select(partkv_query_t* query) {
  if (query != nullptr) query->query.select.clear();
}

void partkv_query_set_page_size(partkv_query_t* query, uint32_t page_size) {
  if (query != nullptr) query->query.page_size = page_size;
}

void partkv_query_set_descending(partkv_query_t* query, int descending) {
  if (query != nullptr) query->query.descending = descending != 0;
}

void partkv_query_set_continuation(partkv_query_t* query, const char* token, size_t length) {
  if (query != nullptr) query->query.continuation = std::string(View(token, length));
}

void partkv_query_set_scan_budget(partkv_query_t* query, uint64_t entities) {
  if (query != nullptr) query->query.scan_budget = entities;
}

void partkv_query_set_scan_time_budget_ms(partkv_query_t* query, int64_t milliseconds) {
  if (query != nullptr) query->query.scan_time_budget = std::chrono::milliseconds(milliseconds);
}

void partkv_query_set_page_bytes(partkv_query_t* query, size_t bytes) {
  if (query != nullptr) query->query.page_bytes = bytes;
}

partkv_page_t* partkv_page_create(void) { return new partkv_page_t; }
void partkv_page_destroy(partkv_page_t* page) { delete page; }

size_t partkv_page_count(const partkv_page_t* page) {
  return page == nullptr ? 0 : page->page.entities.size();
}

const partkv_entity_t* partkv_page_entity(const partkv_page_t* page, size_t index) {
  if (page == nullptr || index >= page->page.entities.size()) return nullptr;
  return WrapEntity(&page->page.entities[index]);
}

const char* partkv_page_continuation(const partkv_page_t* page, size_t* length) {
  static const std::string kEmpty;
  return Lend(page == nullptr ? kEmpty : page->page.continuation, length);
}

uint64_t partkv_page_examined(const partkv_page_t* page) {
  return page == nullptr ? 0 : page->page.examined;
}

char* partkv_page_to_json(const partkv_page_t* page, partkv_json_metadata_t metadata,
                          size_t* length) {
  JsonWriteOptions options;
  options.metadata = metadata == PARTKV_JSON_NO_METADATA  ? JsonMetadata::kNone
                     : metadata == PARTKV_JSON_FULL_METADATA ? JsonMetadata::kFull
                                                             : JsonMetadata::kMinimal;
  std::string json = "[";
  if (page != nullptr) {
    for (const Entity& entity : page->page.entities) {
      if (json.size() > 1) json += ',';
      json += EntityToJson(entity, options);
    }
  }
  json += ']';
  return Copy(json, length);
}

partkv_status_t* partkv_table_query(const partkv_table_t* table, const partkv_query_t* query,
                                    partkv_page_t* page) {
  if (table == nullptr) return NullArgument("table");
  if (query == nullptr) return NullArgument("query");
  if (page == nullptr) return NullArgument("page");
  Status s = table->table.QueryEntities(query->query, &page->page);
  if (!s.ok()) {
    page->page.entities.clear();
    page->page.continuation.clear();
    page->page.examined = 0;
  }
  return Wrap(std::move(s));
}

partkv_status_t* partkv_table_query_shards(const partkv_table_t* table,
                                           const partkv_key_strategy_t* strategy,
                                           const char* base, size_t base_length,
                                           const partkv_query_t* query, partkv_page_t* page) {
  if (table == nullptr) return NullArgument("table");
  if (query == nullptr) return NullArgument("query");
  if (page == nullptr) return NullArgument("page");
  std::string_view key = View(base, base_length);
  Status s = strategy == nullptr
                 ? table->table.QueryShards(key, query->query, &page->page)
                 : table->table.QueryShards(strategy->strategy, key, query->query, &page->page);
  if (!s.ok()) {
    page->page.entities.clear();
    page->page.continuation.clear();
    page->page.examined = 0;
  }
  return Wrap(std::move(s));
}

// ---- Statistics ----

partkv_table_stats_t* partkv_table_statistics(const partkv_table_t* table, size_t top) {
  if (table == nullptr) return nullptr;
  return new partkv_table_stats_t{table->table.Statistics(top)};
}

void partkv_table_stats_destroy(partkv_table_stats_t* stats) { delete stats; }

void partkv_table_stats_total(const partkv_table_stats_t* stats, partkv_partition_stats_t* out) {
  if (stats != nullptr && out != nullptr) CopyStats(stats->stats.total, out);
}

size_t partkv_table_stats_partition_count(const partkv_table_stats_t* stats) {
  return stats == nullptr ? 0 : stats->stats.partitions.size();
}

int partkv_table_stats_partition(const partkv_table_stats_t* stats, size_t index,
                                 partkv_partition_stats_t* out) {
  if (stats == nullptr || out == nullptr || index >= stats->stats.partitions.size()) return 0;
  CopyStats(stats->stats.partitions[index], out);
  return 1;
}

size_t partkv_table_stats_hot_count(const partkv_table_stats_t* stats) {
  return stats == nullptr ? 0 : stats->stats.hottest.size();
}

const char* partkv_table_stats_hot(const partkv_table_stats_t* stats, size_t index,
                                   size_t* length, uint64_t* operations, uint64_t* error) {
  if (stats == nullptr || index >= stats->stats.hottest.size()) {
    if (length != nullptr) *length = 0;
    return nullptr;
  }
  const HotPartition& hot = stats->stats.hottest[index];
  if (operations != nullptr) *operations = hot.operations;
  if (error != nullptr) *error = hot.error;
  return Lend(hot.partition_key, length);
}

partkv_status_t* partkv_table_census(const partkv_table_t* table, size_t top, int rank_by_bytes,
                                     partkv_table_census_t** census) {
  if (table == nullptr) return NullArgument("table");
  if (census == nullptr) return NullArgument("census");
  CensusOptions options;
  options.top = top;
  options.rank_by = rank_by_bytes != 0 ? CensusOptions::RankBy::kBytes
                                       : CensusOptions::RankBy::kEntities;
  Result<TableCensus> counted = table->table.Census(options);
  if (!counted.ok()) return Wrap(counted.status());
  *census = new partkv_table_census_t{std::move(*counted)};
  return nullptr;
}

void partkv_table_census_destroy(partkv_table_census_t* census) { delete census; }

void partkv_table_census_total(const partkv_table_census_t* census,
                               partkv_partition_census_t* out) {
  if (census == nullptr || out == nullptr) return;
  PartitionCensus total;
  total.hash_upper = UINT64_MAX;
  total.entities = census->census.entities;
  total.bytes = census->census.bytes;
  total.logical_partitions = census->census.logical_partitions;
  total.sst_bytes = census->census.sst_bytes;
  CopyCensus(total, out);
}

size_t partkv_table_census_partition_count(const partkv_table_census_t* census) {
  return census == nullptr ? 0 : census->census.partitions.size();
}

int partkv_table_census_partition(const partkv_table_census_t* census, size_t index,
                                  partkv_partition_census_t* out) {
  if (census == nullptr || out == nullptr || index >= census->census.partitions.size()) return 0;
  CopyCensus(census->census.partitions[index], out);
  return 1;
}

size_t partkv_table_census_largest_count(const partkv_table_census_t* census) {
  return census == nullptr ? 0 : census->census.largest.size();
}

const char* partkv_table_census_largest(const partkv_table_census_t* census, size_t index,
                                        size_t* length, uint32_t* physical_partition,
                                        uint64_t* entities, uint64_t* bytes) {
  if (census == nullptr || index >= census->census.largest.size()) {
    if (length != nullptr) *length = 0;
    return nullptr;
  }
  const LogicalPartitionCensus& largest = census->census.largest[index];
  if (physical_partition != nullptr) *physical_partition = largest.physical_partition;
  if (entities != nullptr) *entities = largest.entities;
  if (bytes != nullptr) *bytes = largest.bytes;
  return Lend(largest.partition_key, length);
}

// ---- Stored access policies ----

partkv_access_policies_t* partkv_access_policies_create(void) {
  return new partkv_access_policies_t;
}
void partkv_access_policies_destroy(partkv_access_policies_t* policies) { delete policies; }

void partkv_access_policies_add(partkv_access_policies_t* policies, const char* id,
                                size_t id_length, int has_start, int64_t start, int has_expiry,
                                int64_t expiry, const char* permission,
                                size_t permission_length) {
  if (policies == nullptr) return;
  AccessPolicy policy;
  policy.id = std::string(View(id, id_length));
  if (has_start != 0) policy.start = DateTime{start};
  if (has_expiry != 0) policy.expiry = DateTime{expiry};
  policy.permission = std::string(View(permission, permission_length));
  policies->policies.push_back(std::move(policy));
}

size_t partkv_access_policies_count(const partkv_access_policies_t* policies) {
  return policies == nullptr ? 0 : policies->policies.size();
}

const char* partkv_access_policies_get(const partkv_access_policies_t* policies, size_t index,
                                       size_t* id_length, int* has_start, int64_t* start,
                                       int* has_expiry, int64_t* expiry,
                                       const char** permission, size_t* permission_length) {
  if (policies == nullptr || index >= policies->policies.size()) {
    if (id_length != nullptr) *id_length = 0;
    return nullptr;
  }
  const AccessPolicy& policy = policies->policies[index];
  if (has_start != nullptr) *has_start = policy.start.has_value() ? 1 : 0;
  if (start != nullptr) *start = policy.start ? policy.start->ticks : 0;
  if (has_expiry != nullptr) *has_expiry = policy.expiry.has_value() ? 1 : 0;
  if (expiry != nullptr) *expiry = policy.expiry ? policy.expiry->ticks : 0;
  if (permission != nullptr) *permission = Lend(policy.permission, permission_length);
  return Lend(policy.id, id_length);
}

partkv_status_t* partkv_table_access_policies(const partkv_table_t* table,
                                              partkv_access_policies_t** policies) {
  if (table == nullptr) return NullArgument("table");
  if (policies == nullptr) return NullArgument("policies");
  Result<std::vector<AccessPolicy>> stored = table->table.AccessPolicies();
  if (!stored.ok()) return Wrap(stored.status());
  *policies = new partkv_access_policies_t{std::move(*stored)};
  return nullptr;
}

partkv_status_t* partkv_table_set_access_policies(partkv_table_t* table,
                                                  const partkv_access_policies_t* policies) {
  if (table == nullptr) return NullArgument("table");
  if (policies == nullptr) return NullArgument("policies");
  return Wrap(table->table.SetAccessPolicies(policies->policies));
}

// ---- Bulk writer ----

partkv_bulk_writer_options_t* partkv_bulk_writer_options_create(void) {
  return new partkv_bulk_writer_options_t;
}
void partkv_bulk_writer_options_destroy(partkv_bulk_writer_options_t* options) { delete options; }

void partkv_bulk_writer_options_set_mode(partkv_bulk_writer_options_t* options, partkv_op_t op) {
  // Create checks the mode; a value outside partkv_op_t becomes one it refuses.
  if (options == nullptr) return;
  options->options.mode = op >= PARTKV_OP_INSERT && op <= PARTKV_OP_DELETE
                              ? static_cast<OpType>(op)
                              : OpType::kDelete;
}
void partkv_bulk_writer_options_set_group_bounds(partkv_bulk_writer_options_t* options,
                                                 size_t max_rows, size_t max_bytes) {
  if (options == nullptr) return;
  options->options.max_group_rows = max_rows;
  options->options.max_group_bytes = max_bytes;
}
void partkv_bulk_writer_options_set_sync(partkv_bulk_writer_options_t* options, int value) {
  if (options != nullptr) options->options.write.sync = value != 0;
}
void partkv_bulk_writer_options_set_validate_before_writing(
    partkv_bulk_writer_options_t* options, int value, const char* spill_directory,
    size_t length) {
  if (options == nullptr) return;
  options->options.validate_before_writing = value != 0;
  options->options.spill_directory = std::string(View(spill_directory, length));
}
void partkv_bulk_writer_options_set_threads(partkv_bulk_writer_options_t* options,
                                            size_t threads) {
  if (options != nullptr) options->options.threads = threads;
}
void partkv_bulk_writer_options_set_max_batches_in_flight(partkv_bulk_writer_options_t* options,
                                                          size_t batches) {
  if (options != nullptr) options->options.max_batches_in_flight = batches;
}
void partkv_bulk_writer_options_set_retry_throttled(partkv_bulk_writer_options_t* options,
                                                    int max_attempts, int64_t base_delay_ms,
                                                    int64_t max_delay_ms,
                                                    int64_t max_total_wait_ms) {
  if (options == nullptr) return;
  if (max_attempts <= 0) {
    options->options.retry_throttled.reset();
    return;
  }
  RetryPolicy policy;
  policy.max_attempts = max_attempts;
  policy.base_delay = std::chrono::milliseconds(base_delay_ms);
  policy.max_delay = std::chrono::milliseconds(max_delay_ms);
  policy.max_total_wait = std::chrono::milliseconds(max_total_wait_ms);
  options->options.retry_throttled = policy;
}

partkv_status_t* partkv_bulk_writer_create(const partkv_table_t* table,
                                           const partkv_bulk_writer_options_t* options,
                                           partkv_bulk_writer_t** writer) {
  if (table == nullptr) return NullArgument("table");
  if (writer == nullptr) return NullArgument("writer");
  static const BulkWriteOptions kDefaults;
  Result<BulkWriter> created =
      BulkWriter::Create(table->table, options == nullptr ? kDefaults : options->options);
  if (!created.ok()) return Wrap(created.status());
  *writer = new partkv_bulk_writer_t{std::move(*created)};
  return nullptr;
}

void partkv_bulk_writer_destroy(partkv_bulk_writer_t* writer) { delete writer; }

partkv_status_t* partkv_bulk_writer_add(partkv_bulk_writer_t* writer,
                                        const partkv_entity_t* entity) {
  if (writer == nullptr) return NullArgument("writer");
  if (entity == nullptr) return NullArgument("entity");
  return Wrap(writer->writer.Add(*Unwrap(entity)));
}

partkv_status_t* partkv_bulk_writer_add_json_lines(partkv_bulk_writer_t* writer,
                                                   const char* lines, size_t length) {
  if (writer == nullptr) return NullArgument("writer");
  return Wrap(writer->writer.AddJsonLines(View(lines, length)));
}

partkv_status_t* partkv_bulk_writer_flush(partkv_bulk_writer_t* writer) {
  if (writer == nullptr) return NullArgument("writer");
  return Wrap(writer->writer.Flush());
}

partkv_status_t* partkv_bulk_writer_finish(partkv_bulk_writer_t* writer) {
  if (writer == nullptr) return NullArgument("writer");
  return Wrap(writer->writer.Finish());
}

void partkv_bulk_writer_report(const partkv_bulk_writer_t* writer, partkv_bulk_report_t* out) {
  if (writer == nullptr || out == nullptr) return;
  const BulkWriteReport& r = writer->writer.report();
  out->rows_added = r.rows_added;
  out->lines_added = r.lines_added;
  out->rows_written = r.rows_written;
  out->groups_written = r.groups_written;
  out->batches_written = r.batches_written;
  out->throttled = r.throttled;
  out->throttled_wait_micros = r.throttled_wait_micros;
  out->has_bad_row = r.bad_row.has_value() ? 1 : 0;
  out->bad_row = r.bad_row.value_or(0);
  out->bad_line = r.bad_line;
  out->resume_line = r.resume_line;
  out->also_written_rows = 0;
  for (const BulkRowRange& range : r.also_written) out->also_written_rows += range.end - range.begin;
}

partkv_status_t* partkv_bulk_writer_error(const partkv_bulk_writer_t* writer) {
  if (writer == nullptr) return NullArgument("writer");
  return Wrap(writer->writer.report().error);
}

}  // extern "C"
