// partkv/c.h: store and table options, stores and the facts of a table.

#include <chrono>
#include <cstring>

#include "api/c/c_internal.h"

using namespace partkv;         // NOLINT(build/namespaces): the C functions wrap partkv's API
using namespace partkv::c_api;  // NOLINT(build/namespaces)

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
void partkv_store_options_set_low_priority_compactions(partkv_store_options_t* options, int value) {
  if (options != nullptr) options->options.low_priority_compactions = value != 0;
}
void partkv_store_options_set_remote_ca_file(partkv_store_options_t* options, const char* path,
                                             size_t length) {
  if (options != nullptr) options->options.remote.ca_file = std::string(View(path, length));
}
void partkv_store_options_set_remote_timeouts_ms(partkv_store_options_t* options, int64_t connect,
                                                 int64_t request) {
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
void partkv_table_options_set_physical_partitions(partkv_table_options_t* options, uint32_t count) {
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
                                   const partkv_store_options_t* options, partkv_store_t** store) {
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
             : n == "change-feed"          ? c.change_feed
             : n == "time-to-live"         ? c.time_to_live
                                           : false;
  return has ? 1 : 0;
}

partkv_status_t* partkv_store_create_table(partkv_store_t* store, const char* name, size_t length,
                                           const partkv_table_options_t* options) {
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
  if (partition_key_scheme != nullptr)
    options.partition_key_scheme = partition_key_scheme->strategy;
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

partkv_status_t* partkv_store_service_stats(const partkv_store_t* store, char** status,
                                            size_t* length, int64_t* last_sync_ticks) {
  if (store == nullptr) return NullArgument("store");
  if (status == nullptr) return NullArgument("status");
  if (last_sync_ticks == nullptr) return NullArgument("last_sync_ticks");
  Result<ServiceStatistics> stats = store->store.ServiceStats();
  if (!stats.ok()) return Wrap(stats.status());
  *status = Copy(stats->geo_replication_status, length);
  *last_sync_ticks = stats->last_sync_time ? stats->last_sync_time->ticks : 0;
  return nullptr;
}

partkv_status_t* partkv_store_set_service_properties(partkv_store_t* store, const char* document,
                                                     size_t length) {
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

const partkv_table_info_t* partkv_table_list_get(const partkv_table_list_t* tables, size_t index) {
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

}  // extern "C"
