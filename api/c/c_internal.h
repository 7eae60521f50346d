// What the C API's files share (api/c/c_*.cc, one per concept of partkv/c.h): the structs behind
// partkv/c.h's opaque handles and the conversions between C arguments and partkv's types.
//
// A handle is a struct holding the C++ value, except partkv_entity_t, which is never defined: a
// partkv_entity_t* is a partkv::Entity* cast, so a page's entities are lent without copies.

#ifndef PARTKV_API_C_C_INTERNAL_H_
#define PARTKV_API_C_C_INTERNAL_H_

#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "partkv/c.h"
#include "partkv/c_copy.h"
#include "partkv/partkv.h"

struct partkv_status_t {
  partkv::Status status;
};
struct partkv_key_strategy_t {
  partkv::KeyStrategy strategy;
};
struct partkv_store_options_t {
  partkv::StoreOptions options;
};
struct partkv_table_options_t {
  partkv::TableOptions options;
};
struct partkv_write_options_t {
  partkv::WriteOptions options;
};
struct partkv_store_t {
  partkv::Store store;
};
struct partkv_table_t {
  partkv::Table table;
};
struct partkv_table_info_t {
  partkv::TableInfo info;
};
struct partkv_table_list_t {
  std::vector<partkv_table_info_t> tables;
};
struct partkv_batch_t {
  partkv::Batch batch;
  // What the last successful submit assigned, one per operation; cleared by any change.
  std::vector<partkv::WriteResult> results;
};
struct partkv_query_t {
  partkv::Query query;
};
struct partkv_page_t {
  partkv::Page page;
};
struct partkv_table_stats_t {
  partkv::TableStats stats;
};
struct partkv_table_census_t {
  partkv::TableCensus census;
};
struct partkv_access_policies_t {
  std::vector<partkv::AccessPolicy> policies;
};
struct partkv_bulk_writer_options_t {
  partkv::BulkWriteOptions options;
};
struct partkv_bulk_writer_t {
  partkv::BulkWriter writer;
};
struct partkv_copy_options_t {
  partkv::CopyOptions options;
  // The operation partkv_copy_options_set_mode was given when it is none a copy does (the copy
  // refuses it), else -1.
  int refused_mode = -1;
};
struct partkv_verify_report_t {
  partkv::VerifyReport report;
};

namespace partkv::c_api {

// NULL for OK, else an owned status.
partkv_status_t* Wrap(Status status);
// PARTKV_INVALID_ARGUMENT naming the argument that was NULL.
partkv_status_t* NullArgument(const char* what);
// (pointer, length) as a view; a NULL pointer is the empty text.
// The integer a C caller passed for an enum parameter. C lets any int through; in C++ reading an
// enum object outside its values is undefined (UBSan's -fsanitize=enum stops there), so the value
// is read from the object's bytes and checked as an int.
template <typename Enum>
int EnumValue(const Enum& value) {
  std::underlying_type_t<Enum> raw;
  std::memcpy(&raw, &value, sizeof raw);
  return static_cast<int>(raw);
}

inline std::string_view View(const char* data, size_t length) {
  return data == nullptr ? std::string_view() : std::string_view(data, length);
}
// Owned, NUL-terminated copy of `text` (partkv_free); its length in *length when not NULL.
char* Copy(std::string_view text, size_t* length);
// Lends `text`: its length in *length when not NULL; the pointer.
inline const char* Lend(const std::string& text, size_t* length) {
  if (length != nullptr) *length = text.size();
  return text.c_str();
}
inline Entity* Unwrap(partkv_entity_t* entity) { return reinterpret_cast<Entity*>(entity); }
inline const Entity* Unwrap(const partkv_entity_t* entity) {
  return reinterpret_cast<const Entity*>(entity);
}
inline partkv_entity_t* WrapEntity(Entity* entity) {
  return reinterpret_cast<partkv_entity_t*>(entity);
}
inline const partkv_entity_t* WrapEntity(const Entity* entity) {
  return reinterpret_cast<const partkv_entity_t*>(entity);
}
// NULL, "*" or empty: any; else the ETag.
IfMatch MakeIfMatch(const char* if_match, size_t length);

// The retry policy of the set_retry_throttled setters: none when max_attempts <= 0.
inline std::optional<RetryPolicy> MakeRetryPolicy(int max_attempts, int64_t base_delay_ms,
                                                  int64_t max_delay_ms, int64_t max_total_wait_ms) {
  if (max_attempts <= 0) return std::nullopt;
  RetryPolicy policy;
  policy.max_attempts = max_attempts;
  policy.base_delay = std::chrono::milliseconds(base_delay_ms);
  policy.max_delay = std::chrono::milliseconds(max_delay_ms);
  policy.max_total_wait = std::chrono::milliseconds(max_total_wait_ms);
  return policy;
}

}  // namespace partkv::c_api

#endif  // PARTKV_API_C_C_INTERNAL_H_
