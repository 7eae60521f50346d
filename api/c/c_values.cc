// partkv/c.h: statuses, values, entities and their JSON, key strategies, filters.

#include <cstdlib>
#include <cstring>

#include "api/c/c_internal.h"

#ifndef PARTKV_VERSION
#define PARTKV_VERSION "0.0.0"
#endif

namespace partkv::c_api {

partkv_status_t* Wrap(Status status) {
  if (status.ok()) return nullptr;
  return new partkv_status_t{std::move(status)};
}

partkv_status_t* NullArgument(const char* what) {
  return Wrap(Status::InvalidArgument(std::string(what) + " is NULL"));
}

char* Copy(std::string_view text, size_t* length) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out == nullptr) return nullptr;
  if (!text.empty()) std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  if (length != nullptr) *length = text.size();
  return out;
}

IfMatch MakeIfMatch(const char* if_match, size_t length) {
  std::string_view text = View(if_match, length);
  if (text.empty() || text == "*") return IfMatch::Any();
  return IfMatch::ETag(std::string(text));
}

}  // namespace partkv::c_api

using namespace partkv;         // NOLINT(build/namespaces): the C functions wrap partkv's API
using namespace partkv::c_api;  // NOLINT(build/namespaces)

namespace {

const Value* PropertyAt(const partkv_entity_t* entity, size_t index, Type type) {
  if (entity == nullptr) return nullptr;
  const Entity& e = *Unwrap(entity);
  if (index >= e.property_count()) return nullptr;
  const Value& v = e.properties()[index].second;
  return v.type() == type ? &v : nullptr;
}

}  // namespace

extern "C" {

// ---- Status ----

partkv_code_t partkv_status_code(const partkv_status_t* status) {
  return status == nullptr ? PARTKV_OK : static_cast<partkv_code_t>(status->status.code());
}

const char* partkv_status_message(const partkv_status_t* status, size_t* length) {
  std::string_view message = status == nullptr ? std::string_view() : status->status.message();
  if (length != nullptr) *length = message.size();
  // Status::message() views a std::string, which is NUL-terminated.
  return message.empty() ? "" : message.data();
}

int64_t partkv_status_retry_after_ms(const partkv_status_t* status) {
  return status == nullptr ? 0 : status->status.retry_after().count();
}

int partkv_status_failed_op(const partkv_status_t* status) {
  return status == nullptr ? -1 : status->status.failed_op();
}

void partkv_status_destroy(partkv_status_t* status) { delete status; }

const char* partkv_code_name(partkv_code_t code) {
  const int value = EnumValue(code);
  if (value < PARTKV_OK || value > PARTKV_TRIMMED) return "Unknown";
  // CodeName's views are of string literals.
  return Status::CodeName(static_cast<Status::Code>(value)).data();
}

void partkv_free(void* memory) { std::free(memory); }

const char* partkv_version(void) { return PARTKV_VERSION; }

// ---- Values ----

const char* partkv_type_name(partkv_type_t type) {
  const int value = EnumValue(type);
  if (value < PARTKV_TYPE_STRING || value > PARTKV_TYPE_INT64) return "";
  return TypeName(static_cast<Type>(value)).data();
}

partkv_status_t* partkv_datetime_parse(const char* text, size_t length, int64_t* ticks) {
  if (ticks == nullptr) return NullArgument("ticks");
  Result<DateTime> parsed = DateTime::Parse(View(text, length));
  if (!parsed.ok()) return Wrap(parsed.status());
  *ticks = parsed->ticks;
  return nullptr;
}

char* partkv_datetime_format(int64_t ticks, size_t* length) {
  return Copy(DateTime{ticks}.ToString(), length);
}

partkv_status_t* partkv_guid_parse(const char* text, size_t length, uint8_t bytes[16]) {
  if (bytes == nullptr) return NullArgument("bytes");
  Result<Guid> parsed = Guid::Parse(View(text, length));
  if (!parsed.ok()) return Wrap(parsed.status());
  std::memcpy(bytes, parsed->bytes.data(), 16);
  return nullptr;
}

void partkv_guid_format(const uint8_t bytes[16], char text[37]) {
  if (bytes == nullptr || text == nullptr) return;
  Guid guid;
  std::memcpy(guid.bytes.data(), bytes, 16);
  std::string formatted = guid.ToString();
  std::memcpy(text, formatted.c_str(), 37);
}

// ---- Entities ----

partkv_entity_t* partkv_entity_create(void) { return WrapEntity(new Entity()); }

partkv_entity_t* partkv_entity_clone(const partkv_entity_t* entity) {
  if (entity == nullptr) return nullptr;
  return WrapEntity(new Entity(*Unwrap(entity)));
}

void partkv_entity_destroy(partkv_entity_t* entity) { delete Unwrap(entity); }

void partkv_entity_set_partition_key(partkv_entity_t* entity, const char* key, size_t length) {
  if (entity != nullptr) Unwrap(entity)->set_partition_key(std::string(View(key, length)));
}

void partkv_entity_set_row_key(partkv_entity_t* entity, const char* key, size_t length) {
  if (entity != nullptr) Unwrap(entity)->set_row_key(std::string(View(key, length)));
}

const char* partkv_entity_partition_key(const partkv_entity_t* entity, size_t* length) {
  static const std::string kEmpty;
  return Lend(entity == nullptr ? kEmpty : Unwrap(entity)->partition_key(), length);
}

const char* partkv_entity_row_key(const partkv_entity_t* entity, size_t* length) {
  static const std::string kEmpty;
  return Lend(entity == nullptr ? kEmpty : Unwrap(entity)->row_key(), length);
}

const char* partkv_entity_etag(const partkv_entity_t* entity, size_t* length) {
  static const std::string kEmpty;
  return Lend(entity == nullptr ? kEmpty : Unwrap(entity)->etag(), length);
}

int64_t partkv_entity_timestamp(const partkv_entity_t* entity) {
  return entity == nullptr ? 0 : Unwrap(entity)->timestamp().ticks;
}

void partkv_entity_set_etag(partkv_entity_t* entity, const char* etag, size_t length) {
  if (entity != nullptr) Unwrap(entity)->set_etag(std::string(View(etag, length)));
}

void partkv_entity_set_timestamp(partkv_entity_t* entity, int64_t ticks) {
  if (entity != nullptr) Unwrap(entity)->set_timestamp(DateTime{ticks});
}

#define PARTKV_C_SET(entity, name, name_length, value)                        \
  do {                                                                        \
    if ((entity) != nullptr) {                                                \
      Unwrap(entity)->Set(std::string(View((name), (name_length))), (value)); \
    }                                                                         \
  } while (false)

void partkv_entity_set_string(partkv_entity_t* entity, const char* name, size_t name_length,
                              const char* value, size_t value_length) {
  PARTKV_C_SET(entity, name, name_length, Value::String(std::string(View(value, value_length))));
}

void partkv_entity_set_binary(partkv_entity_t* entity, const char* name, size_t name_length,
                              const void* value, size_t value_length) {
  PARTKV_C_SET(entity, name, name_length,
               Value::Binary(std::string(View(static_cast<const char*>(value), value_length))));
}

void partkv_entity_set_bool(partkv_entity_t* entity, const char* name, size_t name_length,
                            int value) {
  PARTKV_C_SET(entity, name, name_length, Value::Boolean(value != 0));
}

void partkv_entity_set_datetime(partkv_entity_t* entity, const char* name, size_t name_length,
                                int64_t ticks) {
  PARTKV_C_SET(entity, name, name_length, Value::DateTime(DateTime{ticks}));
}

void partkv_entity_set_double(partkv_entity_t* entity, const char* name, size_t name_length,
                              double value) {
  PARTKV_C_SET(entity, name, name_length, Value::Double(value));
}

void partkv_entity_set_guid(partkv_entity_t* entity, const char* name, size_t name_length,
                            const uint8_t bytes[16]) {
  if (bytes == nullptr) return;
  Guid guid;
  std::memcpy(guid.bytes.data(), bytes, 16);
  PARTKV_C_SET(entity, name, name_length, Value::Guid(guid));
}

void partkv_entity_set_int32(partkv_entity_t* entity, const char* name, size_t name_length,
                             int32_t value) {
  PARTKV_C_SET(entity, name, name_length, Value::Int32(value));
}

void partkv_entity_set_int64(partkv_entity_t* entity, const char* name, size_t name_length,
                             int64_t value) {
  PARTKV_C_SET(entity, name, name_length, Value::Int64(value));
}

#undef PARTKV_C_SET

int partkv_entity_remove(partkv_entity_t* entity, const char* name, size_t name_length) {
  return entity != nullptr && Unwrap(entity)->Remove(View(name, name_length)) ? 1 : 0;
}

void partkv_entity_clear_properties(partkv_entity_t* entity) {
  if (entity != nullptr) Unwrap(entity)->ClearProperties();
}

size_t partkv_entity_property_count(const partkv_entity_t* entity) {
  return entity == nullptr ? 0 : Unwrap(entity)->property_count();
}

int partkv_entity_find(const partkv_entity_t* entity, const char* name, size_t name_length,
                       size_t* index) {
  if (entity == nullptr) return 0;
  const Entity& e = *Unwrap(entity);
  const Value* value = e.Get(View(name, name_length));
  if (value == nullptr) return 0;
  // Get returns a pointer into the sorted property vector.
  size_t i = 0;
  while (&e.properties()[i].second != value) ++i;
  if (index != nullptr) *index = i;
  return 1;
}

const char* partkv_entity_property_name(const partkv_entity_t* entity, size_t index,
                                        size_t* length) {
  if (entity == nullptr || index >= Unwrap(entity)->property_count()) {
    if (length != nullptr) *length = 0;
    return nullptr;
  }
  return Lend(Unwrap(entity)->properties()[index].first, length);
}

partkv_type_t partkv_entity_property_type(const partkv_entity_t* entity, size_t index) {
  if (entity == nullptr || index >= Unwrap(entity)->property_count()) {
    return static_cast<partkv_type_t>(0);
  }
  return static_cast<partkv_type_t>(Unwrap(entity)->properties()[index].second.type());
}

const char* partkv_entity_property_string(const partkv_entity_t* entity, size_t index,
                                          size_t* length) {
  const Value* v = PropertyAt(entity, index, Type::kString);
  if (v == nullptr) {
    if (length != nullptr) *length = 0;
    return nullptr;
  }
  return Lend(v->as_string(), length);
}

const void* partkv_entity_property_binary(const partkv_entity_t* entity, size_t index,
                                          size_t* length) {
  const Value* v = PropertyAt(entity, index, Type::kBinary);
  if (v == nullptr) {
    if (length != nullptr) *length = 0;
    return nullptr;
  }
  return Lend(v->as_binary(), length);
}

int partkv_entity_property_bool(const partkv_entity_t* entity, size_t index) {
  const Value* v = PropertyAt(entity, index, Type::kBoolean);
  return v != nullptr && v->as_bool() ? 1 : 0;
}

int64_t partkv_entity_property_datetime(const partkv_entity_t* entity, size_t index) {
  const Value* v = PropertyAt(entity, index, Type::kDateTime);
  return v == nullptr ? 0 : v->as_datetime().ticks;
}

double partkv_entity_property_double(const partkv_entity_t* entity, size_t index) {
  const Value* v = PropertyAt(entity, index, Type::kDouble);
  return v == nullptr ? 0.0 : v->as_double();
}

const uint8_t* partkv_entity_property_guid(const partkv_entity_t* entity, size_t index) {
  const Value* v = PropertyAt(entity, index, Type::kGuid);
  return v == nullptr ? nullptr : v->as_guid().bytes.data();
}

int32_t partkv_entity_property_int32(const partkv_entity_t* entity, size_t index) {
  const Value* v = PropertyAt(entity, index, Type::kInt32);
  return v == nullptr ? 0 : v->as_int32();
}

int64_t partkv_entity_property_int64(const partkv_entity_t* entity, size_t index) {
  const Value* v = PropertyAt(entity, index, Type::kInt64);
  return v == nullptr ? 0 : v->as_int64();
}

partkv_status_t* partkv_entity_from_json(const char* json, size_t length, int read_system,
                                         partkv_entity_t** entity) {
  if (entity == nullptr) return NullArgument("entity");
  JsonReadOptions options;
  options.read_system = read_system != 0;
  Result<Entity> parsed = EntityFromJson(View(json, length), options);
  if (!parsed.ok()) return Wrap(parsed.status());
  *entity = WrapEntity(new Entity(std::move(*parsed)));
  return nullptr;
}

char* partkv_entity_to_json(const partkv_entity_t* entity, partkv_json_metadata_t metadata,
                            int include_system, size_t* length) {
  if (entity == nullptr) return Copy("", length);
  JsonWriteOptions options;
  const int level = EnumValue(metadata);
  options.metadata = level == PARTKV_JSON_NO_METADATA     ? JsonMetadata::kNone
                     : level == PARTKV_JSON_FULL_METADATA ? JsonMetadata::kFull
                                                          : JsonMetadata::kMinimal;
  options.include_system = include_system != 0;
  return Copy(EntityToJson(*Unwrap(entity), options), length);
}

// ---- Key strategies ----

partkv_status_t* partkv_key_strategy_parse(const char* text, size_t length,
                                           partkv_key_strategy_t** strategy) {
  if (strategy == nullptr) return NullArgument("strategy");
  Result<KeyStrategy> parsed = KeyStrategy::Parse(View(text, length));
  if (!parsed.ok()) return Wrap(parsed.status());
  *strategy = new partkv_key_strategy_t{std::move(*parsed)};
  return nullptr;
}

void partkv_key_strategy_destroy(partkv_key_strategy_t* strategy) { delete strategy; }

char* partkv_key_strategy_to_string(const partkv_key_strategy_t* strategy, size_t* length) {
  return Copy(strategy == nullptr ? std::string() : strategy->strategy.ToString(), length);
}

int partkv_key_strategy_is_sharded(const partkv_key_strategy_t* strategy) {
  return strategy != nullptr && strategy->strategy.is_sharded() ? 1 : 0;
}

uint32_t partkv_key_strategy_shard_count(const partkv_key_strategy_t* strategy) {
  return strategy == nullptr ? 0 : strategy->strategy.shard_count();
}

partkv_status_t* partkv_key_strategy_compute(const partkv_key_strategy_t* strategy,
                                             const partkv_entity_t* entity, char** key,
                                             size_t* length) {
  if (strategy == nullptr) return NullArgument("strategy");
  if (entity == nullptr) return NullArgument("entity");
  if (key == nullptr) return NullArgument("key");
  Result<std::string> computed = strategy->strategy.Compute(*Unwrap(entity));
  if (!computed.ok()) return Wrap(computed.status());
  *key = Copy(*computed, length);
  return nullptr;
}

partkv_status_t* partkv_key_strategy_compute_base(const partkv_key_strategy_t* strategy,
                                                  const partkv_entity_t* entity, char** base,
                                                  size_t* length) {
  if (strategy == nullptr) return NullArgument("strategy");
  if (entity == nullptr) return NullArgument("entity");
  if (base == nullptr) return NullArgument("base");
  Result<std::string> computed = strategy->strategy.ComputeBase(*Unwrap(entity));
  if (!computed.ok()) return Wrap(computed.status());
  *base = Copy(*computed, length);
  return nullptr;
}

// ---- Filters ----

struct partkv_filter_t {
  Filter filter;
};

partkv_status_t* partkv_filter_parse(const char* text, size_t length, partkv_filter_t** filter) {
  if (filter == nullptr) return NullArgument("filter");
  Result<Filter> parsed = Filter::Parse(View(text, length));
  if (!parsed.ok()) return Wrap(parsed.status());
  *filter = new partkv_filter_t{std::move(*parsed)};
  return nullptr;
}

void partkv_filter_destroy(partkv_filter_t* filter) { delete filter; }

int partkv_filter_matches(const partkv_filter_t* filter, const partkv_entity_t* entity) {
  if (filter == nullptr || entity == nullptr) return 0;
  return filter->filter.Matches(*Unwrap(entity)) ? 1 : 0;
}

char* partkv_filter_canonical(const partkv_filter_t* filter, size_t* length) {
  return Copy(filter == nullptr ? std::string() : filter->filter.Canonical(), length);
}

}  // extern "C"
