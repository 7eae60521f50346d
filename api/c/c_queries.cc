// partkv/c.h: queries, sharded queries and their pages.

#include <cstring>
#include <optional>

#include "api/c/c_internal.h"

using namespace partkv;         // NOLINT(build/namespaces): the C functions wrap partkv's API
using namespace partkv::c_api;  // NOLINT(build/namespaces)

namespace {

std::optional<Bound> MakeBound(const char* key, size_t length, int inclusive) {
  if (key == nullptr) return std::nullopt;
  return Bound{std::string(key, length), inclusive != 0};
}

}  // namespace

extern "C" {

// ---- Queries ----

partkv_query_t* partkv_query_create(void) { return new partkv_query_t; }
void partkv_query_destroy(partkv_query_t* query) { delete query; }

void partkv_query_set_partition_key(partkv_query_t* query, const char* key, size_t length) {
  if (query == nullptr) return;
  query->query.partition_key = std::string(View(key, length));
  query->query.partition_lower.reset();
  query->query.partition_upper.reset();
}

void partkv_query_set_partition_range(partkv_query_t* query, const char* lower, size_t lower_length,
                                      int lower_inclusive, const char* upper, size_t upper_length,
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
  const int level = EnumValue(metadata);
  options.metadata = level == PARTKV_JSON_NO_METADATA     ? JsonMetadata::kNone
                     : level == PARTKV_JSON_FULL_METADATA ? JsonMetadata::kFull
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
                                           const partkv_key_strategy_t* strategy, const char* base,
                                           size_t base_length, const partkv_query_t* query,
                                           partkv_page_t* page) {
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

}  // extern "C"
