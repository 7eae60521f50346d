/* partkv/c_copy.h — the C API of partkv/copy.h: copying one table into another, between any two
 * stores (local or remote, in any pair), and comparing the two afterwards.
 *
 * partkv/c.h includes this header at its end, so a program includes partkv/c.h alone; including
 * this one first works as well. Everything partkv/c.h says of handles, errors, text and memory
 * holds here; partkv/copy.h is the reference for what a copy does, resumes and reports
 * (docs/c-api.md "Copying a table" has an example).
 *
 *   partkv_copy_options_t* options = partkv_copy_options_create();
 *   partkv_copy_options_set_checkpoint(options, "orders.copy", 11);  (resumable)
 *   partkv_copy_report_t report;
 *   partkv_status_t* stopped = NULL;
 *   partkv_status_t* s = partkv_copy_table(from, to, options, &report, &stopped);
 *   s != NULL: the copy never started (bad options, an unusable checkpoint, an unreadable
 *              source); stopped != NULL: it started and stopped (report says how far it got).
 */

#ifndef PARTKV_C_COPY_H_
#define PARTKV_C_COPY_H_

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

/* ---- Copy options (partkv::CopyOptions) ---- */

typedef struct partkv_copy_options_t partkv_copy_options_t;

/* partkv::CopyOptions with its defaults: every entity and property, inserts, the keys kept, one
 * stream, no checkpoint, a local destination's throttling waited out under partkv::RetryPolicy's
 * defaults. The copy and verify functions take NULL for the defaults. */
partkv_copy_options_t* partkv_copy_options_create(void);
void partkv_copy_options_destroy(partkv_copy_options_t* options);
/* OData $filter on the source ("" copies every entity); checked by the copy. */
void partkv_copy_options_set_filter(partkv_copy_options_t* options, const char* filter,
                                    size_t length);
/* $select: adds a property name to copy (the keys always are); clear_select copies all again. */
void partkv_copy_options_add_select(partkv_copy_options_t* options, const char* name,
                                    size_t length);
void partkv_copy_options_clear_select(partkv_copy_options_t* options);
/* PARTKV_OP_INSERT (the default: an entity the destination already has stops the copy),
 * PARTKV_OP_INSERT_OR_REPLACE or PARTKV_OP_INSERT_OR_MERGE; another operation is refused by the
 * copy (PARTKV_INVALID_ARGUMENT). */
void partkv_copy_options_set_mode(partkv_copy_options_t* options, partkv_op_t op);
/* Re-keying: the destination's PartitionKey / RowKey computed from each entity's properties by
 * `strategy` (copied; NULL keeps that key as it is). random-suffix is refused by the copy. */
void partkv_copy_options_set_partition_key_scheme(partkv_copy_options_t* options,
                                                  const partkv_key_strategy_t* strategy);
void partkv_copy_options_set_row_key_scheme(partkv_copy_options_t* options,
                                            const partkv_key_strategy_t* strategy);
/* Names of String properties that keep the source's PartitionKey and RowKey: both or neither
 * (lengths 0), only with re-keying. */
void partkv_copy_options_set_keep_keys_as(partkv_copy_options_t* options,
                                          const char* partition_key_name,
                                          size_t partition_key_length, const char* row_key_name,
                                          size_t row_key_length);
/* Name of a DateTime property that keeps the source's Timestamp ("" keeps none). */
void partkv_copy_options_set_keep_timestamp_as(partkv_copy_options_t* options, const char* name,
                                               size_t length);
/* Threads reading and writing at once, 1..64 (checked by the copy). */
void partkv_copy_options_set_streams(partkv_copy_options_t* options, uint32_t streams);
/* A remote destination's batches in flight per stream (default 4); a local destination's rows
 * per atomic group (default 16384). Both at least 1 (checked by the copy). */
void partkv_copy_options_set_max_batches_in_flight(partkv_copy_options_t* options, size_t batches);
void partkv_copy_options_set_max_group_rows(partkv_copy_options_t* options, size_t rows);
/* How a local destination's throttling is waited out (partkv::RetryPolicy); max_attempts 0 = it
 * is not: a throttled group stops the copy with PARTKV_THROTTLED. */
void partkv_copy_options_set_retry_throttled(partkv_copy_options_t* options, int max_attempts,
                                             int64_t base_delay_ms, int64_t max_delay_ms,
                                             int64_t max_total_wait_ms);
/* The checkpoint file ("" keeps none): the copy records its progress there and deletes it when
 * it has finished. With `resume`, the copy continues from it. */
void partkv_copy_options_set_checkpoint(partkv_copy_options_t* options, const char* path,
                                        size_t length);
void partkv_copy_options_set_resume(partkv_copy_options_t* options, int value);
/* Text recorded in the checkpoint that a resumed copy must give again, e.g. the two stores'
 * locations (without their secrets: partkv_redact_location): a checkpoint names only the tables
 * and the options otherwise. */
void partkv_copy_options_set_identity(partkv_copy_options_t* options, const char* text,
                                      size_t length);

/* What a copy has done so far (partkv::CopyProgress). */
typedef struct partkv_copy_progress_t {
  uint64_t rows_read;
  uint64_t rows_written;
  /* 1 when source_rows_estimate is known (a local source without a filter, approximately). */
  int has_source_rows_estimate;
  uint64_t source_rows_estimate;
  uint32_t units_done;
  uint32_t units;
} partkv_copy_progress_t;

/* Called after every acknowledged group and when a unit ends, one call at a time, on the copy's
 * threads (not the caller's); `progress` is valid during the call. It must not block for long
 * and must not destroy the tables or the options of the copy. */
typedef void (*partkv_copy_progress_fn)(const partkv_copy_progress_t* progress, void* user_data);
/* The progress callback (NULL: none) and the pointer it is given. */
void partkv_copy_options_set_progress(partkv_copy_options_t* options,
                                      partkv_copy_progress_fn callback, void* user_data);

/* ---- Copying (partkv::CopyTable) ---- */

/* What a copy did (partkv::CopyReport). */
typedef struct partkv_copy_report_t {
  uint64_t rows_read;    /* source entities the filter selected, read in this run */
  uint64_t rows_written; /* acknowledged by the destination in this run */
  uint64_t resent;       /* found in the destination by a resumed copy, as the last run sent them */
  uint32_t units_skipped; /* units the checkpoint records done */
  uint64_t rows_failed;   /* the entity that stopped the copy (0 or 1) */
  uint64_t rekey_collisions;
  uint64_t throttled; /* group writes the destination answered Throttled */
  int64_t throttled_wait_micros;
  uint64_t service_throttled; /* a remote store's requests answered 503 or 429, retried */
  int64_t retry_wait_micros;
  uint64_t probes; /* queries spent finding a remote source's ranges */
  uint32_t units;
  uint32_t streams;
  int64_t elapsed_micros;
} partkv_copy_report_t;

/* Copies `from` into `to` (both stay usable by other threads meanwhile). Returns a status, and
 * leaves *report and *stopped untouched, when the copy never started: PARTKV_INVALID_ARGUMENT
 * naming the option (or the tables being one), PARTKV_ALREADY_EXISTS for an existing checkpoint
 * without resume, PARTKV_NOT_FOUND for a missing one with resume, or the source's failure.
 * Otherwise NULL, with *report filled and *stopped NULL when the copy finished, or an owned status
 * (partkv_status_destroy) saying why it stopped: PARTKV_ALREADY_EXISTS naming the entity for an
 * insert of a key the destination has (or two source entities re-keyed to one key),
 * PARTKV_INVALID_ARGUMENT naming a source entity that cannot be mapped or written, a failure of
 * either store. The checkpoint, if any, then records how far the copy got. */
partkv_status_t* partkv_copy_table(const partkv_table_t* from, const partkv_table_t* to,
                                   const partkv_copy_options_t* options,
                                   partkv_copy_report_t* report, partkv_status_t** stopped);

/* ---- Verifying (partkv::VerifyCopy) ---- */

typedef struct partkv_verify_report_t partkv_verify_report_t;

/* The counts of a verification (partkv::VerifyReport). */
typedef struct partkv_verify_counts_t {
  uint64_t source_rows;      /* source entities the filter selected */
  uint64_t destination_rows; /* entities of the destination */
  uint64_t missing;          /* source entities whose image is not in the destination */
  uint64_t extra;            /* destination entities that are no source entity's image */
  uint64_t different;        /* images present with other properties */
} partkv_verify_counts_t;

/* The keys a verification lists, up to max_listed of each kind, in the order found. */
typedef enum partkv_verify_list_t {
  PARTKV_VERIFY_MISSING = 0,        /* missing images, as destination keys */
  PARTKV_VERIFY_MISSING_SOURCE = 1, /* the same, as the source keys they come from */
  PARTKV_VERIFY_EXTRA = 2,
  PARTKV_VERIFY_DIFFERENT = 3
} partkv_verify_list_t;

/* Compares `to` with what copying `from` with `options` (the same options as the copy; NULL for
 * the defaults) gives, reading both tables; lists up to `max_listed` keys of each kind.
 * *report: owned (partkv_verify_report_destroy). Errors as partkv_copy_table's for bad options;
 * PARTKV_IO_ERROR and the like when either table cannot be read. */
partkv_status_t* partkv_verify_copy(const partkv_table_t* from, const partkv_table_t* to,
                                    const partkv_copy_options_t* options, size_t max_listed,
                                    partkv_verify_report_t** report);
void partkv_verify_report_destroy(partkv_verify_report_t* report);
void partkv_verify_report_counts(const partkv_verify_report_t* report, partkv_verify_counts_t* out);
/* 1 when nothing is missing, extra or different, else 0 (0 for NULL). */
int partkv_verify_report_clean(const partkv_verify_report_t* report);
/* The keys listed of `list`. */
size_t partkv_verify_report_listed(const partkv_verify_report_t* report, partkv_verify_list_t list);
/* The index-th listed key of `list`: its PartitionKey, and *row_key its RowKey (both borrowed from
 * the report); NULL out of range or for an unknown list. */
const char* partkv_verify_report_key(const partkv_verify_report_t* report,
                                     partkv_verify_list_t list, size_t index,
                                     size_t* partition_key_length, const char** row_key,
                                     size_t* row_key_length);

/* cdef: end */

#ifdef __cplusplus
} /* extern "C" */
#endif
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* PARTKV_C_COPY_H_ */
