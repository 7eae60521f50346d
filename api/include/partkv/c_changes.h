/* partkv/c_changes.h — the C API of partkv/changes.h: a table's change feed (reading it in pages,
 * its state, waiting for changes, the sweep) and its entities' time to live, set when the table
 * is created or later with partkv_store_set_table_options.
 *
 * partkv/c.h includes this header at its end, so a program includes partkv/c.h alone; including
 * this one first works as well. Everything partkv/c.h says of handles, errors, text and memory
 * holds here; partkv/changes.h and docs/changes.md are the reference for what the feed records,
 * keeps and trims (docs/c-api.md "The change feed" has an example).
 *
 *   partkv_changes_query_t* query = partkv_changes_query_create();  (from the beginning, latest)
 *   partkv_changes_page_t* page = partkv_changes_page_create();
 *   partkv_status_t* s = partkv_table_read_changes(table, query, page);
 *   ... partkv_changes_page_get(page, i, &change) for i < partkv_changes_page_count(page) ...
 *   then partkv_changes_query_set_continuation(query, partkv_changes_page_continuation(page, &n),
 *   n) and read again (a feed has no end: caught_up says the page reached the newest change).
 *
 * A remote store has no change feed and no time to live: every function below that reaches the
 * store answers PARTKV_INVALID_ARGUMENT naming the missing capability ("change-feed" or
 * "time-to-live"), as partkv_store_create_table does for options that ask for either.
 */

#ifndef PARTKV_C_CHANGES_H_
#define PARTKV_C_CHANGES_H_

#include <stddef.h>
#include <stdint.h>

#include "partkv/c.h"

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif
#ifdef __cplusplus
extern "C" {
#endif

/* cdef: begin (the Python package reads these declarations as well as partkv/c.h's) */

/* ---- Time to live values (partkv::kTtlOff, kTtlNoDefault) ---- */

/* A table's time to live in seconds is PARTKV_TTL_OFF (0, the default: nothing expires, "ttl"
 * properties are ignored), PARTKV_TTL_NO_DEFAULT (-1: only entities with an Int32 or Int64 "ttl"
 * property of N > 0 seconds expire) or N > 0 (every entity expires N seconds after its Timestamp
 * unless its "ttl" property says otherwise; -1 there: never). */
#define PARTKV_TTL_OFF 0
#define PARTKV_TTL_NO_DEFAULT (-1)

/* ---- Store options: the maintenance thread (partkv::StoreOptions) ---- */

/* How often the store's maintenance thread sweeps its tables (partkv_table_sweep) in
 * milliseconds; 0 = never in the background (default 60000). A negative value is taken as 0. */
void partkv_store_options_set_maintenance_interval_ms(partkv_store_options_t* options,
                                                      int64_t milliseconds);

/* ---- Table options: the feed and the time to live (partkv::TableOptions) ---- */

/* The table's change feed: on when `enabled` is not 0; entries older than `retention_seconds`
 * (0 = no limit by age) and the oldest while the feed takes more than `max_bytes` on disk (0 = no
 * limit by size) are trimmed. A negative retention is refused by partkv_store_create_table. */
void partkv_table_options_set_change_feed(partkv_table_options_t* options, int enabled,
                                          int64_t retention_seconds, uint64_t max_bytes);
/* The entities' time to live in seconds (PARTKV_TTL_OFF, PARTKV_TTL_NO_DEFAULT or N > 0); a
 * value below -1 is refused by partkv_store_create_table. */
void partkv_table_options_set_ttl(partkv_table_options_t* options, int64_t seconds);

/* ---- Table facts: the feed and the time to live (partkv::TableInfo) ---- */

/* 1 when the table keeps a change feed, else 0 (0 for NULL); its retention in
 * *retention_seconds and *max_bytes (0 = no limit) when those are not NULL. */
int partkv_table_info_change_feed(const partkv_table_info_t* info, int64_t* retention_seconds,
                                  uint64_t* max_bytes);
/* The table's time to live in seconds (PARTKV_TTL_OFF for NULL). */
int64_t partkv_table_info_ttl(const partkv_table_info_t* info);

/* ---- Changing an existing table's options (partkv::TableSettings) ---- */

typedef struct partkv_table_settings_t partkv_table_settings_t;

/* Settings that change nothing: each setter below marks one option to change; the options not
 * set stay as the table has them. */
partkv_table_settings_t* partkv_table_settings_create(void);
void partkv_table_settings_destroy(partkv_table_settings_t* settings);
/* Turns the change feed on (`enabled` not 0) or off. */
void partkv_table_settings_set_change_feed_enabled(partkv_table_settings_t* settings, int enabled);
/* The feed's retention by age (0 = no limit; negative is refused by
 * partkv_store_set_table_options). */
void partkv_table_settings_set_feed_retention(partkv_table_settings_t* settings, int64_t seconds);
/* The feed's retention by size on disk (0 = no limit). */
void partkv_table_settings_set_feed_max_bytes(partkv_table_settings_t* settings, uint64_t bytes);
/* The time to live (as partkv_table_options_set_ttl; below -1 is refused). */
void partkv_table_settings_set_ttl(partkv_table_settings_t* settings, int64_t seconds);

/* Changes the options `settings` sets of table `name`, durably (Store::SetTableOptions: what a
 * feed turned off and on again means for old positions, and when a new time to live applies).
 * When some of the feed's options are set and others not, the others are read from the table's
 * catalog first (a concurrent change of the same table's feed may be overwritten).
 * PARTKV_NOT_FOUND when there is no such table; PARTKV_INVALID_ARGUMENT for a negative retention
 * or a time to live below -1, or on a remote store. */
partkv_status_t* partkv_store_set_table_options(partkv_store_t* store, const char* name,
                                                size_t length,
                                                const partkv_table_settings_t* settings);

/* ---- Reading the change feed (partkv::ChangesQuery, ChangesPage) ---- */

/* What a change did (partkv::ChangeOp; never renumbered). */
typedef enum partkv_change_op_t {
  PARTKV_CHANGE_INSERT = 1,  /* the entity did not exist (or had expired) */
  PARTKV_CHANGE_REPLACE = 2, /* replaced whole (replace, insert-or-replace of an existing one) */
  PARTKV_CHANGE_MERGE = 3,   /* merged (merge, insert-or-merge of an existing one) */
  PARTKV_CHANGE_DELETE = 4,  /* deleted */
  PARTKV_CHANGE_EXPIRE = 5   /* its time to live ran out (recorded when the store removed it) */
} partkv_change_op_t;

/* "insert", "replace", "merge", "delete", "expire"; "" outside the set. Static text. */
const char* partkv_change_op_name(partkv_change_op_t op);

/* Where a read starts when the query has no continuation token (partkv::ChangeFeedStart). */
typedef enum partkv_changes_start_t {
  PARTKV_CHANGES_FROM_BEGINNING = 0, /* the oldest entry retention kept */
  PARTKV_CHANGES_FROM_NOW = 1        /* after every change made so far: an empty first page */
} partkv_changes_start_t;

/* What a read returns (partkv::ChangeFeedMode). */
typedef enum partkv_changes_mode_t {
  PARTKV_CHANGES_LATEST = 0, /* the newest version of each entity changed since the position */
  PARTKV_CHANGES_ALL = 1     /* every change since the position, in order, deletes included */
} partkv_changes_mode_t;

typedef struct partkv_changes_query_t partkv_changes_query_t;
typedef struct partkv_changes_page_t partkv_changes_page_t;

/* A read from the beginning, in PARTKV_CHANGES_LATEST, 1000 changes per page. */
partkv_changes_query_t* partkv_changes_query_create(void);
void partkv_changes_query_destroy(partkv_changes_query_t* query);
/* The token of a previous page (partkv_changes_page_continuation); "" reads from the start. */
void partkv_changes_query_set_continuation(partkv_changes_query_t* query, const char* token,
                                           size_t length);
/* PARTKV_CHANGES_FROM_BEGINNING or PARTKV_CHANGES_FROM_NOW; another value is refused by the read
 * (PARTKV_INVALID_ARGUMENT). */
void partkv_changes_query_set_start(partkv_changes_query_t* query, partkv_changes_start_t start);
/* PARTKV_CHANGES_LATEST or PARTKV_CHANGES_ALL; another value is refused by the read. */
void partkv_changes_query_set_mode(partkv_changes_query_t* query, partkv_changes_mode_t mode);
/* 1..1000 (checked by the read). */
void partkv_changes_query_set_page_size(partkv_changes_query_t* query, uint32_t page_size);

/* One change of a page (partkv::Change; who made it: partkv_changes_page_origin, below). */
typedef struct partkv_change_t {
  uint64_t seq; /* the feed's sequence number: increasing, never reused by the table */
  partkv_change_op_t op;
  int64_t time_ticks; /* when the store recorded it (.NET ticks, UTC) */
  /* The version written; for a delete or an expiry, the version removed. Borrowed from the page
   * (NUL-terminated), until it is next read into or destroyed. */
  const char* etag;
  size_t etag_length;
  /* The entity after the change (keys, properties, Timestamp, ETag); for a delete or an expiry
   * its keys only. Borrowed from the page, as `etag`. */
  const partkv_entity_t* entity;
} partkv_change_t;

/* Who made a change (partkv::WriteOrigin; never renumbered): the application, or a sync
 * applying a remote table's changes (partkv/c_sync.h), whose own writes a sync does not send
 * back. */
typedef enum partkv_write_origin_t {
  PARTKV_ORIGIN_APPLICATION = 0, /* also every expiry */
  PARTKV_ORIGIN_SYNC = 1
} partkv_write_origin_t;

/* "application", "sync"; "" outside the set. Static text. */
const char* partkv_write_origin_name(partkv_write_origin_t origin);

/* A page of changes; reused across reads, it keeps its storage. */
partkv_changes_page_t* partkv_changes_page_create(void);
void partkv_changes_page_destroy(partkv_changes_page_t* page);
size_t partkv_changes_page_count(const partkv_changes_page_t* page);
/* The index-th change into *out: 1; 0 (out untouched) out of range or for a NULL argument. */
int partkv_changes_page_get(const partkv_changes_page_t* page, size_t index, partkv_change_t* out);
/* Who made the index-th change (partkv::Change::origin); PARTKV_ORIGIN_APPLICATION out of range
 * or for NULL. An accessor rather than a field of partkv_change_t, which is part of the ABI
 * (partkv/c.h "ABI"): a field added there would be written past the end of the struct a program
 * built against this header's earlier form gives partkv_changes_page_get. */
partkv_write_origin_t partkv_changes_page_origin(const partkv_changes_page_t* page, size_t index);
/* Where the next page starts: never "" after a successful read (a feed has no end). Borrowed
 * until the page is next read into. */
const char* partkv_changes_page_continuation(const partkv_changes_page_t* page, size_t* length);
/* 1 when the page reached the newest change committed when it was read, else 0. */
int partkv_changes_page_caught_up(const partkv_changes_page_t* page);

/* One page of the table's change feed into `page` (its previous changes are replaced), from the
 * query's continuation token or start, in its mode. PARTKV_INVALID_ARGUMENT for a page size
 * outside 1..1000, an unknown start or mode, a token that is malformed or another table's, or a
 * table that keeps no change feed (the message says how to turn it on); PARTKV_TRIMMED when
 * retention removed the token's position (the message names the oldest position kept:
 * partkv_table_feed_state's first token reads from there). On failure the page holds no
 * changes. */
partkv_status_t* partkv_table_read_changes(const partkv_table_t* table,
                                           const partkv_changes_query_t* query,
                                           partkv_changes_page_t* page);

/* ---- The feed's state, waiting, the sweep (partkv::ChangeFeedState, SweepReport) ---- */

/* What a table's change feed holds now. */
typedef struct partkv_change_feed_state_t {
  int enabled;               /* 1 (a table without a feed has no state: see below) */
  int64_t retention_seconds; /* 0 = no limit by age */
  uint64_t max_bytes;        /* 0 = no limit by size */
  uint64_t first_seq;        /* the oldest position kept: reads before it are PARTKV_TRIMMED */
  uint64_t next_seq;         /* the sequence number the next change will get */
  uint64_t bytes;            /* on disk, RocksDB's estimate (compressed; memtables included) */
} partkv_change_feed_state_t;

/* The feed's options, extent and size into *state; when first_token is not NULL, a continuation
 * token for first_seq in *first_token (owned: partkv_free). PARTKV_INVALID_ARGUMENT when the
 * table keeps no change feed. */
partkv_status_t* partkv_table_feed_state(const partkv_table_t* table,
                                         partkv_change_feed_state_t* state, char** first_token,
                                         size_t* first_token_length);

/* Waits until the feed holds a change at or after the position of `continuation` (a token of
 * partkv_table_read_changes) or `timeout_ms` passes (0: does not wait): *ready is 1 when it does,
 * else 0. For readers that follow the feed without polling. Errors as partkv_table_read_changes,
 * and PARTKV_INVALID_ARGUMENT for a negative timeout. */
partkv_status_t* partkv_table_await_changes(const partkv_table_t* table, const char* continuation,
                                            size_t length, int64_t timeout_ms, int* ready);

/* What a sweep did. */
typedef struct partkv_sweep_report_t {
  uint64_t feed_entries_trimmed; /* retention moved the feed's start by this many positions */
  uint64_t expiries_recorded;    /* expired entities removed with an "expire" feed entry */
} partkv_sweep_report_t;

/* Runs the table's maintenance now, as the store's maintenance thread does: applies the feed's
 * retention and, when the table keeps a feed and a time to live, removes its expired entities
 * with one "expire" entry each (Table::Sweep). *report filled on success. Writers are not
 * blocked. */
partkv_status_t* partkv_table_sweep(partkv_table_t* table, partkv_sweep_report_t* report);

/* Entities of the census's table whose time to live ran out, still stored until the background
 * reclaims them (counted here only, not in the census's other counts; 0 for NULL). */
uint64_t partkv_table_census_expired_entities(const partkv_table_census_t* census);

/* cdef: end */

#ifdef __cplusplus
} /* extern "C" */
#endif
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* PARTKV_C_CHANGES_H_ */
