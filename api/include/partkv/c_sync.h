/* partkv/c_sync.h — the C API of partkv/sync.h: syncing a table of a local store with a table of
 * a remote one (a remote location, or another local store), both ways, with conflicts resolved by
 * policy.
 *
 * partkv/c.h includes this header at its end, so a program includes partkv/c.h alone; including
 * this one first works as well. Everything partkv/c.h says of handles, errors, text and memory
 * holds here; partkv/sync.h and docs/sync.md are the reference for what a sync sends, brings
 * back, keeps and reports (docs/c-api.md "Syncing a table" has an example).
 *
 *   partkv_sync_options_t* options = partkv_sync_options_create();  (both ways; report)
 *   partkv_sync_report_t report;
 *   partkv_status_t* stopped = NULL;
 *   partkv_status_t* s = partkv_sync_table(local, "Orders", 6, remote, "Orders", 6, options,
 *                                          &report, &stopped);
 *   s != NULL: the sync never started (bad options, a table missing or keeping no change feed);
 *   stopped != NULL: it started and stopped (the next sync carries on from its checkpoints).
 */

#ifndef PARTKV_C_SYNC_H_
#define PARTKV_C_SYNC_H_

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

/* ---- Direction and conflict policy (partkv::SyncDirection, ConflictPolicy) ---- */

/* What a sync does (never renumbered). */
typedef enum partkv_sync_direction_t {
  PARTKV_SYNC_BOTH = 0, /* push, then pull (the default) */
  PARTKV_SYNC_PUSH = 1,
  PARTKV_SYNC_PULL = 2
} partkv_sync_direction_t;

/* How an entity changed on both sides since they last agreed is resolved (never renumbered). */
typedef enum partkv_conflict_policy_t {
  PARTKV_CONFLICTS_REMOTE_WINS = 0, /* the remote version is written locally */
  PARTKV_CONFLICTS_LOCAL_WINS = 1,  /* the local version is written to the remote */
  PARTKV_CONFLICTS_LAST_WRITER = 2, /* the later of the local and the remote Timestamp wins */
  PARTKV_CONFLICTS_REPORT = 3 /* the remote wins; the local version is set aside (the default) */
} partkv_conflict_policy_t;

/* "remote-wins", "local-wins", "last-writer", "report"; "" outside the set. Static text. */
const char* partkv_conflict_policy_name(partkv_conflict_policy_t policy);
/* The policy of that name into *policy: 1; 0 (*policy untouched) for another name. */
int partkv_conflict_policy_parse(const char* name, size_t length, partkv_conflict_policy_t* policy);

/* ---- Sync options (partkv::SyncOptions) ---- */

typedef struct partkv_sync_options_t partkv_sync_options_t;

/* partkv::SyncOptions with its defaults: both ways, PARTKV_CONFLICTS_REPORT, an overlap of 300
 * seconds, no reconcile, state in table "PartkvSync", set-aside versions in "<Table>Conflicts",
 * 4 batches in flight, no callbacks. partkv_sync_table takes NULL for the defaults. */
partkv_sync_options_t* partkv_sync_options_create(void);
void partkv_sync_options_destroy(partkv_sync_options_t* options);
/* PARTKV_SYNC_BOTH, _PUSH or _PULL; another value is refused by the sync
 * (PARTKV_INVALID_ARGUMENT). */
void partkv_sync_options_set_direction(partkv_sync_options_t* options,
                                       partkv_sync_direction_t direction);
/* One of partkv_conflict_policy_t; another value is refused by the sync. */
void partkv_sync_options_set_conflicts(partkv_sync_options_t* options,
                                       partkv_conflict_policy_t policy);
/* Seconds subtracted from the pull's high-water Timestamp (docs/sync.md "Why the overlap is
 * enough"); negative is refused by the sync. */
void partkv_sync_options_set_overlap_seconds(partkv_sync_options_t* options, int64_t seconds);
/* Not 0: the pull also lists the remote table's keys to find remote deletes. */
void partkv_sync_options_set_reconcile(partkv_sync_options_t* options, int value);
/* The local table that holds the pairs' state ("" is refused by the sync). */
void partkv_sync_options_set_state_table(partkv_sync_options_t* options, const char* name,
                                         size_t length);
/* The local table that keeps the local versions set aside ("": the table's name followed by
 * "Conflicts"). */
void partkv_sync_options_set_conflicts_table(partkv_sync_options_t* options, const char* name,
                                             size_t length);
/* The batches a push keeps in flight, 1..64 (checked by the sync). */
void partkv_sync_options_set_max_batches_in_flight(partkv_sync_options_t* options, size_t batches);

/* One conflict, once resolved (partkv::SyncConflict). Everything in it is borrowed for the
 * duration of the callback only (copy what is kept: partkv_entity_clone). */
typedef struct partkv_sync_conflict_t {
  const char* partition_key; /* NUL-terminated */
  size_t partition_key_length;
  const char* row_key; /* NUL-terminated */
  size_t row_key_length;
  /* Each side's version when the conflict was found; NULL when that side had deleted it. */
  const partkv_entity_t* local;
  const partkv_entity_t* remote;
  int local_won; /* 1: the local version won; 0: the remote one did */
  int set_aside; /* 1: the losing local version was kept in the conflicts table */
} partkv_sync_conflict_t;

/* Called for each conflict once resolved, one call at a time, on the thread that called
 * partkv_sync_table. It must not block for long and must not destroy the stores or the options
 * of the sync. */
typedef void (*partkv_sync_conflict_fn)(const partkv_sync_conflict_t* conflict, void* user_data);
/* The conflict callback (NULL: none) and the pointer it is given. */
void partkv_sync_options_set_conflict_callback(partkv_sync_options_t* options,
                                               partkv_sync_conflict_fn callback, void* user_data);

/* What a sync has done so far (partkv::SyncProgress). */
typedef struct partkv_sync_progress_t {
  const char* phase; /* "push", "pull" or "reconcile" (static text) */
  uint64_t pushed;   /* entities written and deleted on the remote */
  uint64_t pulled;   /* entities written and deleted locally */
  uint64_t conflicts;
} partkv_sync_progress_t;

/* Called after each page pushed, pulled or reconciled, one call at a time, on the thread that
 * called partkv_sync_table; `progress` is valid during the call. The same rules as the conflict
 * callback's. */
typedef void (*partkv_sync_progress_fn)(const partkv_sync_progress_t* progress, void* user_data);
/* The progress callback (NULL: none) and the pointer it is given. */
void partkv_sync_options_set_progress(partkv_sync_options_t* options,
                                      partkv_sync_progress_fn callback, void* user_data);

/* ---- Syncing (partkv::SyncTable) ---- */

/* What a sync did (partkv::SyncReport; the conflicts themselves go to the conflict callback). */
typedef struct partkv_sync_report_t {
  uint64_t pushed;             /* entities written (inserted, replaced) on the remote */
  uint64_t pushed_deletes;     /* entities deleted on the remote */
  uint64_t push_skipped;       /* local changes not sent: a sync's own, or superseded */
  uint64_t adopted;            /* writes whose result was already in place */
  uint64_t pulled;             /* entities written locally */
  uint64_t pulled_deletes;     /* entities deleted locally */
  uint64_t pull_unchanged;     /* remote entities read again, not written */
  uint64_t remote_keys_listed; /* by reconcile */
  uint64_t conflicts;
  uint64_t local_won;
  uint64_t remote_won;
  uint64_t set_aside;       /* local versions kept in the conflicts table */
  uint64_t remote_requests; /* requests sent to the remote (retries not counted) */
  int seeded; /* 1 when the push sent the whole table (first sync, or a trimmed position) */
  int64_t elapsed_micros;
} partkv_sync_report_t;

/* Syncs table `table` of the local store `local` with table `remote_table` of `remote` (a
 * remote location or another local store; both stay usable by other threads meanwhile, and the
 * local table may be written). Returns a status, and leaves *report and *stopped untouched, when
 * the sync never started: PARTKV_INVALID_ARGUMENT naming the option (or for a local table that
 * keeps no change feed, or a local store that is a remote location), PARTKV_NOT_FOUND for a
 * missing table, PARTKV_BUSY while another sync of the same pair runs in this process. Otherwise
 * NULL, with *report filled and *stopped NULL when the sync finished, or an owned status
 * (partkv_status_destroy) saying why it stopped; its checkpoints then record how far it got, and
 * the next sync of the pair carries on from there. */
partkv_status_t* partkv_sync_table(partkv_store_t* local, const char* table, size_t table_length,
                                   partkv_store_t* remote, const char* remote_table,
                                   size_t remote_table_length, const partkv_sync_options_t* options,
                                   partkv_sync_report_t* report, partkv_status_t** stopped);

/* cdef: end */

#ifdef __cplusplus
} /* extern "C" */
#endif
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* PARTKV_C_SYNC_H_ */
