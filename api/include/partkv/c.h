/* partkv/c.h — the C API of libpartkv: the whole public API (partkv/partkv.h) for C programs and
 * for other languages' bindings (the Python package binds it with cffi: docs/python.md).
 *
 * C99, no C++ types; every symbol is named partkv_<object>_<verb>. Some parts of the API are
 * declared in headers of their own that this one includes at its end (partkv/c_copy.h: copying
 * tables; partkv/c_changes.h: the change feed and time to live; partkv/c_sync.h: syncing a table
 * with a remote one), so a program includes partkv/c.h alone. docs/c-api.md is the guide, with
 * a complete program; the C++ headers named at each section are the reference for what an
 * operation does (the C API adds no behaviour of its own).
 *
 * Handles. Every object is an opaque handle, made by a `_create` (or `_open`, `_parse`, or an
 * out parameter) and released by the matching `_destroy` (or `_close`). Passing NULL to a
 * `_destroy` or `_close` does nothing. A handle may be used from one thread at a time, except
 * stores and tables, which any number of threads may use at once (as partkv::Store and Table).
 * A table handle keeps the store's engine open: partkv_store_close releases the store handle,
 * and the engine closes when its last store and table handles are gone.
 *
 * Errors. A function that can fail returns a partkv_status_t*: NULL on success; otherwise a
 * status the caller owns and releases with partkv_status_destroy, carrying the code (what to do
 * next: PARTKV_THROTTLED means retry after partkv_status_retry_after_ms, PARTKV_INVALID_ARGUMENT
 * means fix the input, ...), the message, and for a failed batch the index of the operation. On
 * failure every out parameter is left as it was. No function aborts on bad input: a NULL handle
 * where one is required is PARTKV_INVALID_ARGUMENT.
 *
 * Every `size_t* length` out parameter may be NULL when the length is not wanted.
 *
 * Bytes and text. Every key, name, value, filter, token and JSON text is given as a pointer and
 * a length in bytes (it need not be NUL-terminated; the pointer may be NULL when the length is
 * 0), and is copied before the call returns. Text is UTF-8; it is validated where partkv::Table
 * validates it (when an entity is written, a filter parsed, ...).
 *
 * Memory ownership, stated at each function:
 *   - "borrowed": a pointer into a handle, valid until that handle is destroyed or next changed
 *     (the change that ends it is named). Text borrowed is also NUL-terminated.
 *   - "owned": allocated for the caller; release it with the function named (partkv_free for
 *     text, always NUL-terminated as well).
 *
 * ABI. The plain structs below (partkv_partition_stats_t, ...) are part of the ABI of this
 * version of libpartkv; a future version that changes one changes the library's soname.
 */

#ifndef PARTKV_C_H_
#define PARTKV_C_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif
#ifdef __cplusplus
extern "C" {
#endif

/* cdef: begin (the Python package reads the declarations from here to "cdef: end") */

/* ---- Status (partkv/status.h) ---- */

/* The codes: never renumbered (they are partkv::Status::Code and the CLI's exit statuses). */
typedef enum partkv_code_t {
  PARTKV_OK = 0,
  PARTKV_NOT_FOUND = 1,           /* the table or entity does not exist */
  PARTKV_ALREADY_EXISTS = 2,      /* the table or (PartitionKey, RowKey) exists already */
  PARTKV_PRECONDITION_FAILED = 3, /* an ETag condition did not hold: re-read, retry */
  PARTKV_INVALID_ARGUMENT = 4,    /* bad input: fix the request; retrying will not help */
  PARTKV_THROTTLED = 5,           /* over a throughput budget: retry after the wait */
  PARTKV_CORRUPTION = 6,          /* stored bytes could not be decoded */
  PARTKV_IO_ERROR = 7,            /* the file system, the storage engine or the network failed */
  PARTKV_BUSY = 8,                /* a resource is held elsewhere (the store is already open) */
  PARTKV_PERMISSION_DENIED = 9,   /* a remote service refused the credential (HTTP 401/403) */
  PARTKV_TRIMMED = 10             /* a change feed position that retention removed */
} partkv_code_t;

typedef struct partkv_status_t partkv_status_t;

/* The status's code; PARTKV_OK for NULL. */
partkv_code_t partkv_status_code(const partkv_status_t* status);
/* The message without the code's name ("" for NULL). Borrowed from `status`. */
const char* partkv_status_message(const partkv_status_t* status, size_t* length);
/* For PARTKV_THROTTLED, the wait before retrying, in milliseconds; 0 otherwise. */
int64_t partkv_status_retry_after_ms(const partkv_status_t* status);
/* For a failed batch, the 0-based index of the failing operation; -1 otherwise. */
int partkv_status_failed_op(const partkv_status_t* status);
void partkv_status_destroy(partkv_status_t* status);
/* "OK", "NotFound", "AlreadyExists", ... ; "Unknown" outside the set. Static text. */
const char* partkv_code_name(partkv_code_t code);

/* Releases text and buffers the API returns as "owned ... (partkv_free)". */
void partkv_free(void* memory);
/* The library's version, "MAJOR.MINOR.PATCH". Static text. */
const char* partkv_version(void);

/* ---- Values (partkv/value.h) ---- */

/* The eight Edm types; the numbers are partkv::Type's (persisted on disk: never renumbered). */
typedef enum partkv_type_t {
  PARTKV_TYPE_STRING = 1,
  PARTKV_TYPE_BINARY = 2,
  PARTKV_TYPE_BOOLEAN = 3,
  PARTKV_TYPE_DATETIME = 4, /* .NET ticks: 100 ns units since 0001-01-01T00:00:00Z, UTC */
  PARTKV_TYPE_DOUBLE = 5,
  PARTKV_TYPE_GUID = 6, /* 16 bytes, in the order of the canonical text form */
  PARTKV_TYPE_INT32 = 7,
  PARTKV_TYPE_INT64 = 8
} partkv_type_t;

/* "String", "Binary", ... ; "" outside the set. Static text. */
const char* partkv_type_name(partkv_type_t type);

/* Ticks at the Unix epoch (1970-01-01T00:00:00Z) and DateTime.MaxValue's ticks. */
#define PARTKV_UNIX_EPOCH_TICKS 621355968000000000LL
#define PARTKV_MAX_TICKS 3155378975999999999LL

/* Parses ISO 8601 ("2024-01-02T03:04:05.1234567Z", as partkv::DateTime::Parse). */
partkv_status_t* partkv_datetime_parse(const char* text, size_t length, int64_t* ticks);
/* "YYYY-MM-DDTHH:MM:SS.fffffffZ". Owned (partkv_free). */
char* partkv_datetime_format(int64_t ticks, size_t* length);
/* Parses "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (braces allowed) into 16 bytes. */
partkv_status_t* partkv_guid_parse(const char* text, size_t length, uint8_t bytes[16]);
/* The lower-case canonical form into `text`, NUL-terminated (37 bytes). */
void partkv_guid_format(const uint8_t bytes[16], char text[37]);

/* ---- Entities (partkv/entity.h, partkv/json.h) ---- */

/* An entity: PartitionKey, RowKey, properties kept sorted by name (bytes), and the Timestamp
 * and ETag the store returns. A plain value: nothing is validated until it is written. */
typedef struct partkv_entity_t partkv_entity_t;

partkv_entity_t* partkv_entity_create(void);
/* A copy. Owned (partkv_entity_destroy). */
partkv_entity_t* partkv_entity_clone(const partkv_entity_t* entity);
void partkv_entity_destroy(partkv_entity_t* entity);

void partkv_entity_set_partition_key(partkv_entity_t* entity, const char* key, size_t length);
void partkv_entity_set_row_key(partkv_entity_t* entity, const char* key, size_t length);
/* Borrowed until the key is next set. */
const char* partkv_entity_partition_key(const partkv_entity_t* entity, size_t* length);
const char* partkv_entity_row_key(const partkv_entity_t* entity, size_t* length);
/* The ETag and Timestamp (ticks) of an entity the store returned, or that a write was given
 * (writes set them); "" and 0 otherwise. The ETag is borrowed until it is next set. */
const char* partkv_entity_etag(const partkv_entity_t* entity, size_t* length);
int64_t partkv_entity_timestamp(const partkv_entity_t* entity);
void partkv_entity_set_etag(partkv_entity_t* entity, const char* etag, size_t length);
void partkv_entity_set_timestamp(partkv_entity_t* entity, int64_t ticks);

/* Adds a property, or replaces the one of that name (its type too). Property names are checked
 * when the entity is written (Azure's rules: docs/design.md "Semantics"). */
void partkv_entity_set_string(partkv_entity_t* entity, const char* name, size_t name_length,
                              const char* value, size_t value_length);
void partkv_entity_set_binary(partkv_entity_t* entity, const char* name, size_t name_length,
                              const void* value, size_t value_length);
void partkv_entity_set_bool(partkv_entity_t* entity, const char* name, size_t name_length,
                            int value);
void partkv_entity_set_datetime(partkv_entity_t* entity, const char* name, size_t name_length,
                                int64_t ticks);
void partkv_entity_set_double(partkv_entity_t* entity, const char* name, size_t name_length,
                              double value);
void partkv_entity_set_guid(partkv_entity_t* entity, const char* name, size_t name_length,
                            const uint8_t bytes[16]);
void partkv_entity_set_int32(partkv_entity_t* entity, const char* name, size_t name_length,
                             int32_t value);
void partkv_entity_set_int64(partkv_entity_t* entity, const char* name, size_t name_length,
                             int64_t value);
/* Removes a property: 1 when it existed, else 0. */
int partkv_entity_remove(partkv_entity_t* entity, const char* name, size_t name_length);
void partkv_entity_clear_properties(partkv_entity_t* entity);

/* Properties by index, 0 .. count-1, in name order. Any set, remove or clear changes indexes and
 * ends what was borrowed. An index out of range, or a getter of another type, returns 0 (NULL
 * and length 0 for the text getters): test the type first. */
size_t partkv_entity_property_count(const partkv_entity_t* entity);
/* 1 and *index when the entity has a property of that name, else 0. */
int partkv_entity_find(const partkv_entity_t* entity, const char* name, size_t name_length,
                       size_t* index);
const char* partkv_entity_property_name(const partkv_entity_t* entity, size_t index,
                                        size_t* length);
/* The property's type; 0 for an index out of range. */
partkv_type_t partkv_entity_property_type(const partkv_entity_t* entity, size_t index);
/* String and Binary values: borrowed (a Binary value is bytes; it is NUL-terminated as well). */
const char* partkv_entity_property_string(const partkv_entity_t* entity, size_t index,
                                          size_t* length);
const void* partkv_entity_property_binary(const partkv_entity_t* entity, size_t index,
                                          size_t* length);
int partkv_entity_property_bool(const partkv_entity_t* entity, size_t index);
int64_t partkv_entity_property_datetime(const partkv_entity_t* entity, size_t index);
double partkv_entity_property_double(const partkv_entity_t* entity, size_t index);
/* The 16 bytes, borrowed; NULL when not a Guid. */
const uint8_t* partkv_entity_property_guid(const partkv_entity_t* entity, size_t index);
int32_t partkv_entity_property_int32(const partkv_entity_t* entity, size_t index);
int64_t partkv_entity_property_int64(const partkv_entity_t* entity, size_t index);

/* How much type metadata JSON carries (partkv::JsonMetadata). */
typedef enum partkv_json_metadata_t {
  PARTKV_JSON_NO_METADATA = 0,
  PARTKV_JSON_MINIMAL_METADATA = 1,
  PARTKV_JSON_FULL_METADATA = 2
} partkv_json_metadata_t;

/* Reads one Azure Table JSON entity (docs/json.md). With read_system, "Timestamp" and
 * "odata.etag" set the entity's Timestamp and ETag. *entity: owned (partkv_entity_destroy).
 * PARTKV_INVALID_ARGUMENT naming the property and what is wrong. */
partkv_status_t* partkv_entity_from_json(const char* json, size_t length, int read_system,
                                         partkv_entity_t** entity);
/* The entity as Azure Table JSON, with the system properties when include_system. Owned
 * (partkv_free). */
char* partkv_entity_to_json(const partkv_entity_t* entity, partkv_json_metadata_t metadata,
                            int include_system, size_t* length);

/* ---- Key strategies (partkv/keys.h, docs/keys.md) ---- */

typedef struct partkv_key_strategy_t partkv_key_strategy_t;

/* Parses a strategy's text form: "concat(deviceId,year,sep=-)", "random-suffix(date,200)",
 * "hash-suffix(date,orderId,200,hash=xxh3)", "md5-bits(id,4)", "asc-ticks(t)",
 * "desc-ticks(t)". *strategy: owned (partkv_key_strategy_destroy). */
partkv_status_t* partkv_key_strategy_parse(const char* text, size_t length,
                                           partkv_key_strategy_t** strategy);
void partkv_key_strategy_destroy(partkv_key_strategy_t* strategy);
/* The canonical text form. Owned (partkv_free). */
char* partkv_key_strategy_to_string(const partkv_key_strategy_t* strategy, size_t* length);
/* 1 for random-suffix and hash-suffix (keys are base + "." + 1..N). */
int partkv_key_strategy_is_sharded(const partkv_key_strategy_t* strategy);
/* N for the sharded kinds; 1 for the others. */
uint32_t partkv_key_strategy_shard_count(const partkv_key_strategy_t* strategy);
/* The key for the entity's properties (random-suffix draws its suffix). *key: owned
 * (partkv_free). PARTKV_INVALID_ARGUMENT naming the field when one is missing or cannot form a
 * key. */
partkv_status_t* partkv_key_strategy_compute(const partkv_key_strategy_t* strategy,
                                             const partkv_entity_t* entity, char** key,
                                             size_t* length);
/* The part before the shard suffix (the whole key for the other kinds). Owned (partkv_free). */
partkv_status_t* partkv_key_strategy_compute_base(const partkv_key_strategy_t* strategy,
                                                  const partkv_entity_t* entity, char** base,
                                                  size_t* length);

/* ---- Filters (partkv/filter.h) ---- */

typedef struct partkv_filter_t partkv_filter_t;

/* Parses an OData $filter (Azure's grammar; "" matches everything). *filter: owned
 * (partkv_filter_destroy). PARTKV_INVALID_ARGUMENT naming the byte position. */
partkv_status_t* partkv_filter_parse(const char* text, size_t length, partkv_filter_t** filter);
void partkv_filter_destroy(partkv_filter_t* filter);
/* 1 when the entity satisfies the filter, else 0. */
int partkv_filter_matches(const partkv_filter_t* filter, const partkv_entity_t* entity);
/* The canonical, fully parenthesised text. Owned (partkv_free). */
char* partkv_filter_canonical(const partkv_filter_t* filter, size_t* length);

/* ---- Options (partkv/options.h) ---- */

typedef struct partkv_store_options_t partkv_store_options_t;
typedef struct partkv_table_options_t partkv_table_options_t;
typedef struct partkv_write_options_t partkv_write_options_t;

/* partkv::StoreOptions with its defaults. Functions that take options take NULL for the
 * defaults. */
partkv_store_options_t* partkv_store_options_create(void);
void partkv_store_options_destroy(partkv_store_options_t* options);
void partkv_store_options_set_create_if_missing(partkv_store_options_t* options, int value);
void partkv_store_options_set_error_if_exists(partkv_store_options_t* options, int value);
void partkv_store_options_set_memory_budget(partkv_store_options_t* options, size_t bytes);
/* "azure-table" (the default), "cosmos", "dynamodb" or "none"; checked at open. */
void partkv_store_options_set_profile(partkv_store_options_t* options, const char* name,
                                      size_t length);
void partkv_store_options_set_throttling(partkv_store_options_t* options, int value);
void partkv_store_options_set_write_stall_timeout_ms(partkv_store_options_t* options,
                                                     int64_t milliseconds);
/* 0 = the machine's cores; 1 = the calling thread only. */
void partkv_store_options_set_scan_threads(partkv_store_options_t* options, size_t threads);
/* Compactions at the lowest CPU priority, for every RocksDB database in the process
 * (StoreOptions::low_priority_compactions). */
void partkv_store_options_set_low_priority_compactions(partkv_store_options_t* options, int value);
/* A remote store's client (partkv::RemoteOptions); "" = the system's CA store. */
void partkv_store_options_set_remote_ca_file(partkv_store_options_t* options, const char* path,
                                             size_t length);
void partkv_store_options_set_remote_timeouts_ms(partkv_store_options_t* options, int64_t connect,
                                                 int64_t request);
void partkv_store_options_set_remote_connections(partkv_store_options_t* options,
                                                 size_t max_connections, size_t fan_out);
/* partkv::RetryOptions: max_attempts 1 = never retry. */
void partkv_store_options_set_remote_retry(partkv_store_options_t* options, int max_attempts,
                                           int64_t initial_backoff_ms, int64_t max_backoff_ms,
                                           int64_t max_total_ms);

/* partkv::TableOptions with its defaults (16 physical partitions, no key schemes, the store's
 * profile and throttling). */
partkv_table_options_t* partkv_table_options_create(void);
void partkv_table_options_destroy(partkv_table_options_t* options);
void partkv_table_options_set_physical_partitions(partkv_table_options_t* options, uint32_t count);
/* The key schemes (copied; NULL = none). */
void partkv_table_options_set_partition_key_scheme(partkv_table_options_t* options,
                                                   const partkv_key_strategy_t* strategy);
void partkv_table_options_set_row_key_scheme(partkv_table_options_t* options,
                                             const partkv_key_strategy_t* strategy);
void partkv_table_options_set_profile(partkv_table_options_t* options, const char* name,
                                      size_t length);
void partkv_table_options_set_throttling(partkv_table_options_t* options, int value);

/* partkv::WriteOptions: sync = fsync the write-ahead log before the write is acknowledged. */
partkv_write_options_t* partkv_write_options_create(void);
void partkv_write_options_destroy(partkv_write_options_t* options);
void partkv_write_options_set_sync(partkv_write_options_t* options, int value);

/* ---- Stores (partkv/store.h) ---- */

typedef struct partkv_store_t partkv_store_t;
typedef struct partkv_table_t partkv_table_t;
typedef struct partkv_table_info_t partkv_table_info_t;
typedef struct partkv_table_list_t partkv_table_list_t;

/* Opens (or creates) the store in directory `location`, or a remote store when `location` is an
 * Azure Storage connection string or a table endpoint URL with a SAS (docs/remote.md).
 * *store: owned (partkv_store_close). PARTKV_BUSY when the store is already open, in
 * another process or through a live handle of this one;
 * PARTKV_INVALID_ARGUMENT for something that is not a store, an unknown format version or a bad
 * connection string (never showing a key). */
partkv_status_t* partkv_store_open(const char* location, size_t length,
                                   const partkv_store_options_t* options, partkv_store_t** store);
void partkv_store_close(partkv_store_t* store);
/* 1 when partkv_store_open takes `location` for a remote store. */
int partkv_is_remote_location(const char* location, size_t length);
/* `location` with its secrets replaced by "<redacted>". Owned (partkv_free). */
char* partkv_redact_location(const char* location, size_t length, size_t* result_length);

/* The directory, or a remote store's endpoint URL. Borrowed from the store. */
const char* partkv_store_path(const partkv_store_t* store, size_t* length);
/* "local" or "remote". Static text. */
const char* partkv_store_backend(const partkv_store_t* store);
/* 1 when the store has the capability named as in partkv/capabilities.h ("descending-scans",
 * "ordered-scans", "scan-budget", "key-scheme-catalog", "physical-partitions",
 * "throttling-emulation", "census", "engine-statistics", "storage-engine", "access-policies",
 * "service-properties", "change-feed", "time-to-live"); 0 when it lacks it or the name is
 * unknown. */
int partkv_store_has_capability(const partkv_store_t* store, const char* name, size_t length);

/* PARTKV_INVALID_ARGUMENT for a bad name (^[A-Za-z][A-Za-z0-9]{2,62}$) or option;
 * PARTKV_ALREADY_EXISTS when a table of that name (case-insensitive) exists. */
partkv_status_t* partkv_store_create_table(partkv_store_t* store, const char* name, size_t length,
                                           const partkv_table_options_t* options);
/* Drops the table and its entities. PARTKV_NOT_FOUND when there is none. */
partkv_status_t* partkv_store_drop_table(partkv_store_t* store, const char* name, size_t length);
/* Every table, sorted by name. *tables: owned (partkv_table_list_destroy). */
partkv_status_t* partkv_store_list_tables(const partkv_store_t* store,
                                          partkv_table_list_t** tables);
/* A handle on an existing table. The key schemes (NULL = none) are given for a remote table,
 * which keeps none; on a local one a scheme given must be the catalog's. *table: owned
 * (partkv_table_close). PARTKV_NOT_FOUND when there is no such table. */
partkv_status_t* partkv_store_open_table(const partkv_store_t* store, const char* name,
                                         size_t length,
                                         const partkv_key_strategy_t* partition_key_scheme,
                                         const partkv_key_strategy_t* row_key_scheme,
                                         partkv_table_t** table);

/* The service properties document ("" when never set). *document: owned (partkv_free). */
partkv_status_t* partkv_store_service_properties(const partkv_store_t* store, char** document,
                                                 size_t* length);
partkv_status_t* partkv_store_set_service_properties(partkv_store_t* store, const char* document,
                                                     size_t length);
/* Replication statistics (Azure's Get Table Service Stats): *status is "live", "bootstrap" or
 * "unavailable" (owned: partkv_free), *last_sync_ticks the instant before which every
 * acknowledged write is readable there, to the second (0 when the service names none). A local
 * store answers "live" and the current second; a remote one asks the account's secondary
 * location (Store::ServiceStats). */
partkv_status_t* partkv_store_service_stats(const partkv_store_t* store, char** status,
                                            size_t* length, int64_t* last_sync_ticks);
/* Flushes memtables; waits for quiet (PARTKV_BUSY when `timeout_ms` passed first); waits until
 * writes are taken again after the storage engine stopped them (a full disk). */
partkv_status_t* partkv_store_flush(partkv_store_t* store);
partkv_status_t* partkv_store_await_background_work(partkv_store_t* store, int64_t timeout_ms);
partkv_status_t* partkv_store_await_writable(partkv_store_t* store, int64_t timeout_ms);

size_t partkv_table_list_count(const partkv_table_list_t* tables);
/* Borrowed from the list; NULL for an index out of range. */
const partkv_table_info_t* partkv_table_list_get(const partkv_table_list_t* tables, size_t index);
void partkv_table_list_destroy(partkv_table_list_t* tables);

/* ---- Table facts (partkv/table_info.h) ---- */

/* Text is borrowed from the info; scheme texts are "" for none. */
const char* partkv_table_info_name(const partkv_table_info_t* info, size_t* length);
uint32_t partkv_table_info_physical_partitions(const partkv_table_info_t* info);
int64_t partkv_table_info_created(const partkv_table_info_t* info);
const char* partkv_table_info_partition_key_scheme(const partkv_table_info_t* info, size_t* length);
const char* partkv_table_info_row_key_scheme(const partkv_table_info_t* info, size_t* length);
const char* partkv_table_info_profile(const partkv_table_info_t* info, size_t* length);
int partkv_table_info_throttling(const partkv_table_info_t* info);
void partkv_table_info_destroy(partkv_table_info_t* info);

/* ---- Tables: reads and writes (partkv/table.h) ---- */

/* The operations of writes and batches (partkv::OpType). */
typedef enum partkv_op_t {
  PARTKV_OP_INSERT = 0,
  PARTKV_OP_REPLACE = 1,
  PARTKV_OP_MERGE = 2,
  PARTKV_OP_INSERT_OR_REPLACE = 3,
  PARTKV_OP_INSERT_OR_MERGE = 4,
  PARTKV_OP_DELETE = 5
} partkv_op_t;

void partkv_table_close(partkv_table_t* table);
/* As created. Borrowed from the table. */
const char* partkv_table_name(const partkv_table_t* table, size_t* length);
/* The table's catalog facts. Owned (partkv_table_info_destroy). */
partkv_table_info_t* partkv_table_info(const partkv_table_t* table);

/* Writes. On success the store's ETag and Timestamp are set on `entity`. `if_match` is an ETag,
 * or "*", "" or NULL for any (the entity must exist either way). A table with a key scheme computes
 * an empty key first. Codes: PARTKV_ALREADY_EXISTS (insert of an existing row), PARTKV_NOT_FOUND (a
 * missing row, or a dropped table), PARTKV_PRECONDITION_FAILED (the ETag does not match),
 * PARTKV_INVALID_ARGUMENT naming the limit an entity breaks, PARTKV_THROTTLED, PARTKV_BUSY,
 * PARTKV_IO_ERROR. */
partkv_status_t* partkv_table_insert(partkv_table_t* table, partkv_entity_t* entity,
                                     const partkv_write_options_t* options);
partkv_status_t* partkv_table_replace(partkv_table_t* table, partkv_entity_t* entity,
                                      const char* if_match, size_t if_match_length,
                                      const partkv_write_options_t* options);
partkv_status_t* partkv_table_merge(partkv_table_t* table, partkv_entity_t* entity,
                                    const char* if_match, size_t if_match_length,
                                    const partkv_write_options_t* options);
partkv_status_t* partkv_table_insert_or_replace(partkv_table_t* table, partkv_entity_t* entity,
                                                const partkv_write_options_t* options);
partkv_status_t* partkv_table_insert_or_merge(partkv_table_t* table, partkv_entity_t* entity,
                                              const partkv_write_options_t* options);
partkv_status_t* partkv_table_delete(partkv_table_t* table, const char* partition_key,
                                     size_t partition_key_length, const char* row_key,
                                     size_t row_key_length, const char* if_match,
                                     size_t if_match_length, const partkv_write_options_t* options);

/* The stored entity with its Timestamp and ETag. *entity: owned (partkv_entity_destroy).
 * PARTKV_NOT_FOUND when missing. */
partkv_status_t* partkv_table_get(const partkv_table_t* table, const char* partition_key,
                                  size_t partition_key_length, const char* row_key,
                                  size_t row_key_length, partkv_entity_t** entity);
/* A point read by natural attributes: the keys are computed with the table's key schemes.
 * *entity: owned (partkv_entity_destroy). */
partkv_status_t* partkv_table_get_by_attributes(const partkv_table_t* table,
                                                const partkv_entity_t* attributes,
                                                partkv_entity_t** entity);
/* `entity` with the keys the table's schemes compute for a write of type `op`. *result: owned
 * (partkv_entity_destroy). */
partkv_status_t* partkv_table_compute_keys(const partkv_table_t* table,
                                           const partkv_entity_t* entity, partkv_op_t op,
                                           partkv_entity_t** result);
/* The physical partition holding PartitionKey `partition_key` (0 on a remote store). */
uint32_t partkv_table_physical_partition_of(const partkv_table_t* table, const char* partition_key,
                                            size_t length);

/* ---- Batches (partkv/batch.h) ---- */

/* Up to 100 operations on distinct rows of one PartitionKey, applied atomically. */
typedef struct partkv_batch_t partkv_batch_t;

partkv_batch_t* partkv_batch_create(void);
void partkv_batch_destroy(partkv_batch_t* batch);
void partkv_batch_clear(partkv_batch_t* batch);
size_t partkv_batch_size(const partkv_batch_t* batch);
/* Records an operation (the entity is copied; only its keys matter for PARTKV_OP_DELETE).
 * `if_match` as for the single writes; ignored by the inserts and upserts. Nothing is checked
 * until the batch is submitted. */
void partkv_batch_add(partkv_batch_t* batch, partkv_op_t op, const partkv_entity_t* entity,
                      const char* if_match, size_t if_match_length);
void partkv_batch_add_delete(partkv_batch_t* batch, const char* partition_key,
                             size_t partition_key_length, const char* row_key,
                             size_t row_key_length, const char* if_match, size_t if_match_length);
/* Applies every operation, or none. On success each operation's ETag and Timestamp are in the
 * batch (below). On failure partkv_status_failed_op names the failing operation: the one whose
 * condition failed, that is invalid, or that breaks a batch rule (the 101st, the one past 4 MiB,
 * the first of a second PartitionKey); -1 for a failure tied to none (the store's). */
partkv_status_t* partkv_table_submit(partkv_table_t* table, partkv_batch_t* batch,
                                     const partkv_write_options_t* options);
/* After a successful submit: operation `index`'s ETag ("" for a delete; borrowed until the
 * batch is next changed or submitted) and Timestamp ticks. "" and 0 before, or out of range. */
const char* partkv_batch_etag(const partkv_batch_t* batch, size_t index, size_t* length);
int64_t partkv_batch_timestamp(const partkv_batch_t* batch, size_t index);

/* ---- Queries (partkv/query.h) ---- */

typedef struct partkv_query_t partkv_query_t;
typedef struct partkv_page_t partkv_page_t;

/* A query of every entity, 1000 per page, ascending; narrow it with the setters. */
partkv_query_t* partkv_query_create(void);
void partkv_query_destroy(partkv_query_t* query);
/* One PartitionKey (ends a PartitionKey range). */
void partkv_query_set_partition_key(partkv_query_t* query, const char* key, size_t length);
/* A PartitionKey range; a NULL bound is open (ends a single PartitionKey). */
void partkv_query_set_partition_range(partkv_query_t* query, const char* lower, size_t lower_length,
                                      int lower_inclusive, const char* upper, size_t upper_length,
                                      int upper_inclusive);
/* A RowKey range within every matching partition; a NULL bound is open. */
void partkv_query_set_row_range(partkv_query_t* query, const char* lower, size_t lower_length,
                                int lower_inclusive, const char* upper, size_t upper_length,
                                int upper_inclusive);
/* A RowKey prefix (with the range, both apply); NULL for none. */
void partkv_query_set_row_prefix(partkv_query_t* query, const char* prefix, size_t length);
/* OData $filter text ("" for none); checked when the query runs. */
void partkv_query_set_filter(partkv_query_t* query, const char* filter, size_t length);
/* $select: adds a property name; clear_select returns to all properties. */
void partkv_query_add_select(partkv_query_t* query, const char* name, size_t length);
void partkv_query_clear_select(partkv_query_t* query);
/* 1..1000 (checked when the query runs). */
void partkv_query_set_page_size(partkv_query_t* query, uint32_t page_size);
void partkv_query_set_descending(partkv_query_t* query, int descending);
/* The token of the previous page (partkv_page_continuation); "" starts over. */
void partkv_query_set_continuation(partkv_query_t* query, const char* token, size_t length);
/* A page's bounds (partkv::Query): entities examined (0 = 10 x page size; UINT64_MAX = none),
 * time (0 = none), bytes (0 = 4 MiB). */
void partkv_query_set_scan_budget(partkv_query_t* query, uint64_t entities);
void partkv_query_set_scan_time_budget_ms(partkv_query_t* query, int64_t milliseconds);
void partkv_query_set_page_bytes(partkv_query_t* query, size_t bytes);

/* A page of entities; reused across queries, it keeps its storage. */
partkv_page_t* partkv_page_create(void);
void partkv_page_destroy(partkv_page_t* page);
size_t partkv_page_count(const partkv_page_t* page);
/* Borrowed until the page is next queried into or destroyed; NULL out of range. */
const partkv_entity_t* partkv_page_entity(const partkv_page_t* page, size_t index);
/* "" when the query is complete; else the token for partkv_query_set_continuation. Borrowed
 * until the page is next queried into. */
const char* partkv_page_continuation(const partkv_page_t* page, size_t* length);
/* Entities examined to produce the page. */
uint64_t partkv_page_examined(const partkv_page_t* page);
/* The page's entities as one JSON array of Azure Table entities (with ETags and Timestamps), the
 * "value" of the service's answer: for bindings that read a page in one call. Owned
 * (partkv_free). */
char* partkv_page_to_json(const partkv_page_t* page, partkv_json_metadata_t metadata,
                          size_t* length);

/* One page of `query` into `page` (its previous entities are replaced). PARTKV_INVALID_ARGUMENT
 * for a bad filter, page size, select name or continuation token; on failure the page holds no
 * entities. */
partkv_status_t* partkv_table_query(const partkv_table_t* table, const partkv_query_t* query,
                                    partkv_page_t* page);
/* A sharded (scatter-gather) read of the logical key `base` written under N suffixes
 * (base.1 .. base.N), merged by RowKey: the shards come from `strategy`, or when NULL from the
 * table's sharded PartitionKey scheme. REQUIRES: the query names no PartitionKey condition. */
partkv_status_t* partkv_table_query_shards(const partkv_table_t* table,
                                           const partkv_key_strategy_t* strategy, const char* base,
                                           size_t base_length, const partkv_query_t* query,
                                           partkv_page_t* page);

/* ---- Statistics (partkv/stats.h, partkv/census.h) ---- */

/* What a physical partition has served since the store opened. */
typedef struct partkv_partition_stats_t {
  uint32_t index;
  uint64_t reads;
  uint64_t writes;
  uint64_t bytes_read;
  uint64_t bytes_written;
  uint64_t throttled;
  uint64_t retry_wait_micros;
} partkv_partition_stats_t;

typedef struct partkv_table_stats_t partkv_table_stats_t;

/* The table's counters with its `top` hottest logical partitions. Owned
 * (partkv_table_stats_destroy). */
partkv_table_stats_t* partkv_table_statistics(const partkv_table_t* table, size_t top);
void partkv_table_stats_destroy(partkv_table_stats_t* stats);
void partkv_table_stats_total(const partkv_table_stats_t* stats, partkv_partition_stats_t* out);
size_t partkv_table_stats_partition_count(const partkv_table_stats_t* stats);
/* 0 and *out untouched for an index out of range, else 1. */
int partkv_table_stats_partition(const partkv_table_stats_t* stats, size_t index,
                                 partkv_partition_stats_t* out);
size_t partkv_table_stats_hot_count(const partkv_table_stats_t* stats);
/* The index-th hottest PartitionKey (borrowed from `stats`), its operations (an upper bound)
 * and how much they may overstate; NULL out of range. */
const char* partkv_table_stats_hot(const partkv_table_stats_t* stats, size_t index, size_t* length,
                                   uint64_t* operations, uint64_t* error);

/* What a physical partition stores (partkv::PartitionCensus). */
typedef struct partkv_partition_census_t {
  uint32_t index;
  uint64_t hash_lower;
  uint64_t hash_upper;
  uint64_t entities;
  uint64_t bytes;
  uint64_t logical_partitions;
  uint64_t sst_bytes;
} partkv_partition_census_t;

typedef struct partkv_table_census_t partkv_table_census_t;

/* Counts what the table stores, reading every row once (partkv::Table::Census): the `top`
 * largest logical partitions by entities, or by bytes when rank_by_bytes. *census: owned
 * (partkv_table_census_destroy). */
partkv_status_t* partkv_table_census(const partkv_table_t* table, size_t top, int rank_by_bytes,
                                     partkv_table_census_t** census);
void partkv_table_census_destroy(partkv_table_census_t* census);
/* The sums over the partitions, as a partkv_partition_census_t whose index and hash range are
 * 0 and the whole hash space. */
void partkv_table_census_total(const partkv_table_census_t* census, partkv_partition_census_t* out);
size_t partkv_table_census_partition_count(const partkv_table_census_t* census);
int partkv_table_census_partition(const partkv_table_census_t* census, size_t index,
                                  partkv_partition_census_t* out);
size_t partkv_table_census_largest_count(const partkv_table_census_t* census);
/* The index-th largest PartitionKey (borrowed from `census`) with its physical partition,
 * entities and bytes; NULL out of range. */
const char* partkv_table_census_largest(const partkv_table_census_t* census, size_t index,
                                        size_t* length, uint32_t* physical_partition,
                                        uint64_t* entities, uint64_t* bytes);

/* ---- Stored access policies (partkv/table_info.h) ---- */

typedef struct partkv_access_policies_t partkv_access_policies_t;

partkv_access_policies_t* partkv_access_policies_create(void);
void partkv_access_policies_destroy(partkv_access_policies_t* policies);
/* Appends a policy: `start`/`expiry` ticks are used when has_start/has_expiry; `permission` is
 * letters of "raud". Checked by partkv_table_set_access_policies. */
void partkv_access_policies_add(partkv_access_policies_t* policies, const char* id,
                                size_t id_length, int has_start, int64_t start, int has_expiry,
                                int64_t expiry, const char* permission, size_t permission_length);
size_t partkv_access_policies_count(const partkv_access_policies_t* policies);
/* The index-th policy: its id (borrowed), whether it has a start and an expiry (*start,
 * *expiry: their ticks, 0 when absent) and its permission (borrowed); NULL out of range. */
const char* partkv_access_policies_get(const partkv_access_policies_t* policies, size_t index,
                                       size_t* id_length, int* has_start, int64_t* start,
                                       int* has_expiry, int64_t* expiry, const char** permission,
                                       size_t* permission_length);
/* *policies: owned (partkv_access_policies_destroy). */
partkv_status_t* partkv_table_access_policies(const partkv_table_t* table,
                                              partkv_access_policies_t** policies);
partkv_status_t* partkv_table_set_access_policies(partkv_table_t* table,
                                                  const partkv_access_policies_t* policies);

/* ---- Bulk writer (partkv/bulk_writer.h) ---- */

typedef struct partkv_bulk_writer_options_t partkv_bulk_writer_options_t;
typedef struct partkv_bulk_writer_t partkv_bulk_writer_t;

/* partkv::BulkWriteOptions with its defaults (inserts, streaming). */
partkv_bulk_writer_options_t* partkv_bulk_writer_options_create(void);
void partkv_bulk_writer_options_destroy(partkv_bulk_writer_options_t* options);
/* PARTKV_OP_INSERT, PARTKV_OP_INSERT_OR_REPLACE or PARTKV_OP_INSERT_OR_MERGE (checked by
 * partkv_bulk_writer_create). */
void partkv_bulk_writer_options_set_mode(partkv_bulk_writer_options_t* options, partkv_op_t op);
void partkv_bulk_writer_options_set_group_bounds(partkv_bulk_writer_options_t* options,
                                                 size_t max_rows, size_t max_bytes);
void partkv_bulk_writer_options_set_sync(partkv_bulk_writer_options_t* options, int value);
/* Validate every row before writing any, waiting in a spill file in `spill_directory` ("" =
 * $TMPDIR, else /tmp). */
void partkv_bulk_writer_options_set_validate_before_writing(partkv_bulk_writer_options_t* options,
                                                            int value, const char* spill_directory,
                                                            size_t length);
/* Worker threads of partkv_bulk_writer_add_json_lines (0 = one per core, at least 2). */
void partkv_bulk_writer_options_set_threads(partkv_bulk_writer_options_t* options, size_t threads);
/* A remote table's batches in flight. */
void partkv_bulk_writer_options_set_max_batches_in_flight(partkv_bulk_writer_options_t* options,
                                                          size_t batches);
/* Retry a throttled group (partkv::RetryPolicy); max_attempts 0 = do not (the default):
 * PARTKV_THROTTLED is returned and the same call is made again after the wait. */
void partkv_bulk_writer_options_set_retry_throttled(partkv_bulk_writer_options_t* options,
                                                    int max_attempts, int64_t base_delay_ms,
                                                    int64_t max_delay_ms,
                                                    int64_t max_total_wait_ms);

/* A writer into `table` (it keeps its own handle). *writer: owned (partkv_bulk_writer_destroy,
 * which drops the rows not yet written). */
partkv_status_t* partkv_bulk_writer_create(const partkv_table_t* table,
                                           const partkv_bulk_writer_options_t* options,
                                           partkv_bulk_writer_t** writer);
void partkv_bulk_writer_destroy(partkv_bulk_writer_t* writer);
/* The stream's next row (copied). The row's error ("row N: ..."), the first bad row's error
 * once the writer has stopped, PARTKV_THROTTLED or PARTKV_BUSY (the row was not taken: add it
 * again after the wait), a conflict (PARTKV_ALREADY_EXISTS) or a failure of the store. */
partkv_status_t* partkv_bulk_writer_add(partkv_bulk_writer_t* writer,
                                        const partkv_entity_t* entity);
/* JSON Lines (whole lines; blank lines skipped) as the stream's next rows; a bad line may be
 * reported by a later call ("line N: ..."). */
partkv_status_t* partkv_bulk_writer_add_json_lines(partkv_bulk_writer_t* writer, const char* lines,
                                                   size_t length);
partkv_status_t* partkv_bulk_writer_flush(partkv_bulk_writer_t* writer);
/* Writes every row not yet written. After PARTKV_THROTTLED or PARTKV_BUSY call it again. */
partkv_status_t* partkv_bulk_writer_finish(partkv_bulk_writer_t* writer);

/* What a bulk write has done so far (partkv::BulkWriteReport). */
typedef struct partkv_bulk_report_t {
  uint64_t rows_added;
  uint64_t lines_added;
  uint64_t rows_written;
  uint64_t groups_written;
  uint64_t batches_written;
  uint64_t throttled;
  int64_t throttled_wait_micros;
  int has_bad_row;
  uint64_t bad_row;
  uint64_t bad_line;
  uint64_t resume_line;
  /* A remote table's rows written past rows_written (partkv::BulkWriteReport::also_written). */
  uint64_t also_written_rows;
} partkv_bulk_report_t;

void partkv_bulk_writer_report(const partkv_bulk_writer_t* writer, partkv_bulk_report_t* out);
/* Why the writer stopped: NULL while it goes on, else an owned copy of the error
 * (partkv_status_destroy); PARTKV_INVALID_ARGUMENT for a NULL writer. */
partkv_status_t* partkv_bulk_writer_error(const partkv_bulk_writer_t* writer);

/* cdef: end */

#ifdef __cplusplus
} /* extern "C" */
#endif
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

/* The parts of the C API kept in headers of their own, declared after everything above. */
#include "partkv/c_changes.h" /* the change feed and time to live (partkv/changes.h) */
#include "partkv/c_copy.h"    /* copying a table, verifying a copy (partkv/copy.h) */
#include "partkv/c_sync.h"    /* syncing a local table with a remote one (partkv/sync.h) */

#endif /* PARTKV_C_H_ */
