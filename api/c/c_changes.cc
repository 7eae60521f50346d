// partkv/c_changes.h: the change feed and time to live in table options, table facts and table
// settings; reading the feed in pages, its state, waiting for changes, the sweep.

#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "api/c/c_internal.h"

// The handles of partkv/c_changes.h (the others are in c_internal.h).
struct partkv_table_settings_t {
  std::optional<bool> enabled;
  std::optional<int64_t> retention_seconds;
  std::optional<uint64_t> max_bytes;
  std::optional<int64_t> ttl_seconds;
};
struct partkv_changes_query_t {
  partkv::ChangesQuery query;
  // The values set_start and set_mode were given when they are none of the enums' (the read
  // refuses them).
  std::optional<int> refused_start;
  std::optional<int> refused_mode;
};
struct partkv_changes_page_t {
  partkv::ChangesPage page;
};

using namespace partkv;         // NOLINT(build/namespaces): the C functions wrap partkv's API
using namespace partkv::c_api;  // NOLINT(build/namespaces)

namespace {

// PARTKV_INVALID_ARGUMENT for a start or mode the query's setters took that is none of the
// enums' values; NULL otherwise.
partkv_status_t* CheckQuery(const partkv_changes_query_t* query) {
  if (query->refused_start) {
    return Wrap(Status::InvalidArgument(
        "start: " + std::to_string(*query->refused_start) +
        " is not a change feed start (PARTKV_CHANGES_FROM_BEGINNING or PARTKV_CHANGES_FROM_NOW)"));
  }
  if (query->refused_mode) {
    return Wrap(Status::InvalidArgument(
        "mode: " + std::to_string(*query->refused_mode) +
        " is not a change feed mode (PARTKV_CHANGES_LATEST or PARTKV_CHANGES_ALL)"));
  }
  return nullptr;
}

// The table's catalog facts by name, for settings that change some of the feed's options only.
Result<TableInfo> InfoOf(const Store& store, std::string_view name) {
  Result<Table> table = store.OpenTable(name);
  if (!table.ok()) return table.status();
  return table->info();
}

}  // namespace

extern "C" {

// ---- Store options ----

void partkv_store_options_set_maintenance_interval_ms(partkv_store_options_t* options,
                                                      int64_t milliseconds) {
  if (options == nullptr) return;
  options->options.maintenance_interval =
      std::chrono::milliseconds(milliseconds < 0 ? 0 : milliseconds);
}

// ---- Table options ----

void partkv_table_options_set_change_feed(partkv_table_options_t* options, int enabled,
                                          int64_t retention_seconds, uint64_t max_bytes) {
  if (options == nullptr) return;
  options->options.change_feed.enabled = enabled != 0;
  options->options.change_feed.retention = std::chrono::seconds(retention_seconds);
  options->options.change_feed.max_bytes = max_bytes;
}
void partkv_table_options_set_ttl(partkv_table_options_t* options, int64_t seconds) {
  if (options != nullptr) options->options.ttl_seconds = seconds;
}

// ---- Table facts ----

int partkv_table_info_change_feed(const partkv_table_info_t* info, int64_t* retention_seconds,
                                  uint64_t* max_bytes) {
  if (info == nullptr) return 0;
  const ChangeFeedOptions& feed = info->info.change_feed;
  if (retention_seconds != nullptr) *retention_seconds = feed.retention.count();
  if (max_bytes != nullptr) *max_bytes = feed.max_bytes;
  return feed.enabled ? 1 : 0;
}
int64_t partkv_table_info_ttl(const partkv_table_info_t* info) {
  return info == nullptr ? kTtlOff : info->info.ttl_seconds;
}

// ---- Table settings ----

partkv_table_settings_t* partkv_table_settings_create(void) { return new partkv_table_settings_t; }
void partkv_table_settings_destroy(partkv_table_settings_t* settings) { delete settings; }
void partkv_table_settings_set_change_feed_enabled(partkv_table_settings_t* settings, int enabled) {
  if (settings != nullptr) settings->enabled = enabled != 0;
}
void partkv_table_settings_set_feed_retention(partkv_table_settings_t* settings, int64_t seconds) {
  if (settings != nullptr) settings->retention_seconds = seconds;
}
void partkv_table_settings_set_feed_max_bytes(partkv_table_settings_t* settings, uint64_t bytes) {
  if (settings != nullptr) settings->max_bytes = bytes;
}
void partkv_table_settings_set_ttl(partkv_table_settings_t* settings, int64_t seconds) {
  if (settings != nullptr) settings->ttl_seconds = seconds;
}

partkv_status_t* partkv_store_set_table_options(partkv_store_t* store, const char* name,
                                                size_t length,
                                                const partkv_table_settings_t* settings) {
  if (store == nullptr) return NullArgument("store");
  if (settings == nullptr) return NullArgument("settings");
  const std::string_view table = View(name, length);
  TableSettings out;
  const bool all_feed = settings->enabled && settings->retention_seconds && settings->max_bytes;
  const bool some_feed = settings->enabled || settings->retention_seconds || settings->max_bytes;
  if (some_feed) {
    ChangeFeedOptions feed;
    if (!all_feed) {
      // Only a remote store lacks the catalog read below: let SetTableOptions say so.
      if (!store->store.capabilities().change_feed) {
        return Wrap(store->store.SetTableOptions(table, TableSettings{ChangeFeedOptions{}, {}}));
      }
      Result<TableInfo> info = InfoOf(store->store, table);
      if (!info.ok()) return Wrap(info.status());
      feed = info->change_feed;
    }
    if (settings->enabled) feed.enabled = *settings->enabled;
    if (settings->retention_seconds) {
      feed.retention = std::chrono::seconds(*settings->retention_seconds);
    }
    if (settings->max_bytes) feed.max_bytes = *settings->max_bytes;
    out.change_feed = feed;
  }
  out.ttl_seconds = settings->ttl_seconds;
  return Wrap(store->store.SetTableOptions(table, out));
}

// ---- Reading the change feed ----

const char* partkv_change_op_name(partkv_change_op_t op) {
  const int value = EnumValue(op);
  if (value < PARTKV_CHANGE_INSERT || value > PARTKV_CHANGE_EXPIRE) return "";
  return ChangeOpName(static_cast<ChangeOp>(value));
}

partkv_changes_query_t* partkv_changes_query_create(void) { return new partkv_changes_query_t; }
void partkv_changes_query_destroy(partkv_changes_query_t* query) { delete query; }
void partkv_changes_query_set_continuation(partkv_changes_query_t* query, const char* token,
                                           size_t length) {
  if (query != nullptr) query->query.continuation = std::string(View(token, length));
}
void partkv_changes_query_set_start(partkv_changes_query_t* query, partkv_changes_start_t start) {
  if (query == nullptr) return;
  const int value = EnumValue(start);
  query->refused_start.reset();
  switch (value) {
    case PARTKV_CHANGES_FROM_BEGINNING:
      query->query.start = ChangeFeedStart::kBeginning;
      break;
    case PARTKV_CHANGES_FROM_NOW:
      query->query.start = ChangeFeedStart::kNow;
      break;
    default:
      query->refused_start = value;
      break;
  }
}
void partkv_changes_query_set_mode(partkv_changes_query_t* query, partkv_changes_mode_t mode) {
  if (query == nullptr) return;
  const int value = EnumValue(mode);
  query->refused_mode.reset();
  switch (value) {
    case PARTKV_CHANGES_LATEST:
      query->query.mode = ChangeFeedMode::kLatest;
      break;
    case PARTKV_CHANGES_ALL:
      query->query.mode = ChangeFeedMode::kAll;
      break;
    default:
      query->refused_mode = value;
      break;
  }
}
void partkv_changes_query_set_page_size(partkv_changes_query_t* query, uint32_t page_size) {
  if (query != nullptr) query->query.page_size = page_size;
}

const char* partkv_write_origin_name(partkv_write_origin_t origin) {
  const int value = EnumValue(origin);
  if (value < PARTKV_ORIGIN_APPLICATION || value > PARTKV_ORIGIN_SYNC) return "";
  return WriteOriginName(static_cast<WriteOrigin>(value));
}

partkv_changes_page_t* partkv_changes_page_create(void) { return new partkv_changes_page_t; }
void partkv_changes_page_destroy(partkv_changes_page_t* page) { delete page; }
size_t partkv_changes_page_count(const partkv_changes_page_t* page) {
  return page == nullptr ? 0 : page->page.changes.size();
}
int partkv_changes_page_get(const partkv_changes_page_t* page, size_t index, partkv_change_t* out) {
  if (page == nullptr || out == nullptr || index >= page->page.changes.size()) return 0;
  const Change& change = page->page.changes[index];
  out->seq = change.seq;
  out->op = static_cast<partkv_change_op_t>(static_cast<int>(change.op));
  out->time_ticks = change.time.ticks;
  out->etag = Lend(change.etag, &out->etag_length);
  out->entity = WrapEntity(&change.entity);
  return 1;
}
partkv_write_origin_t partkv_changes_page_origin(const partkv_changes_page_t* page, size_t index) {
  if (page == nullptr || index >= page->page.changes.size()) return PARTKV_ORIGIN_APPLICATION;
  return static_cast<partkv_write_origin_t>(static_cast<int>(page->page.changes[index].origin));
}
const char* partkv_changes_page_continuation(const partkv_changes_page_t* page, size_t* length) {
  static const std::string kEmpty;
  return Lend(page == nullptr ? kEmpty : page->page.continuation, length);
}
int partkv_changes_page_caught_up(const partkv_changes_page_t* page) {
  return page != nullptr && page->page.caught_up ? 1 : 0;
}

partkv_status_t* partkv_table_read_changes(const partkv_table_t* table,
                                           const partkv_changes_query_t* query,
                                           partkv_changes_page_t* page) {
  if (table == nullptr) return NullArgument("table");
  if (query == nullptr) return NullArgument("query");
  if (page == nullptr) return NullArgument("page");
  page->page = ChangesPage{};
  if (partkv_status_t* refused = CheckQuery(query)) return refused;
  Result<ChangesPage> read = table->table.ReadChanges(query->query);
  if (!read.ok()) return Wrap(read.status());
  page->page = *std::move(read);
  return nullptr;
}

// ---- The feed's state, waiting, the sweep ----

partkv_status_t* partkv_table_feed_state(const partkv_table_t* table,
                                         partkv_change_feed_state_t* state, char** first_token,
                                         size_t* first_token_length) {
  if (table == nullptr) return NullArgument("table");
  if (state == nullptr) return NullArgument("state");
  Result<ChangeFeedState> read = table->table.FeedState();
  if (!read.ok()) return Wrap(read.status());
  state->enabled = read->options.enabled ? 1 : 0;
  state->retention_seconds = read->options.retention.count();
  state->max_bytes = read->options.max_bytes;
  state->first_seq = read->first_seq;
  state->next_seq = read->next_seq;
  state->bytes = read->bytes;
  if (first_token != nullptr) *first_token = Copy(read->first_token, first_token_length);
  return nullptr;
}

partkv_status_t* partkv_table_await_changes(const partkv_table_t* table, const char* continuation,
                                            size_t length, int64_t timeout_ms, int* ready) {
  if (table == nullptr) return NullArgument("table");
  if (ready == nullptr) return NullArgument("ready");
  if (timeout_ms < 0) {
    return Wrap(Status::InvalidArgument("timeout_ms: " + std::to_string(timeout_ms) +
                                        " is negative (0 does not wait)"));
  }
  Result<bool> waited =
      table->table.AwaitChanges(View(continuation, length), std::chrono::milliseconds(timeout_ms));
  if (!waited.ok()) return Wrap(waited.status());
  *ready = *waited ? 1 : 0;
  return nullptr;
}

partkv_status_t* partkv_table_sweep(partkv_table_t* table, partkv_sweep_report_t* report) {
  if (table == nullptr) return NullArgument("table");
  if (report == nullptr) return NullArgument("report");
  Result<SweepReport> swept = table->table.Sweep();
  if (!swept.ok()) return Wrap(swept.status());
  report->feed_entries_trimmed = swept->feed_entries_trimmed;
  report->expiries_recorded = swept->expiries_recorded;
  return nullptr;
}

uint64_t partkv_table_census_expired_entities(const partkv_table_census_t* census) {
  return census == nullptr ? 0 : census->census.expired_entities;
}

}  // extern "C"
