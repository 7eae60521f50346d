/* Copying a table and verifying a copy (partkv/c_copy.h; partkv/copy.h): local to local, the
 * insert conflict, a resumed copy, re-keying, the differences a verification finds, and the
 * options and arguments refused. */

#include "harness.h"

#define TEXT(s) s, strlen(s)

/* Rows of the whole table. */
static int rows_of(const partkv_table_t* table) {
  partkv_query_t* query = partkv_query_create();
  partkv_page_t* page = partkv_page_create();
  size_t length = 0;
  const char* token;
  int total = 0;
  for (;;) {
    if (!pk_ok(partkv_table_query(table, query, page), __FILE__, __LINE__, "rows_of")) {
      total = -1;
      break;
    }
    total += (int)partkv_page_count(page);
    token = partkv_page_continuation(page, &length);
    if (length == 0) break;
    partkv_query_set_continuation(query, token, length);
  }
  partkv_page_destroy(page);
  partkv_query_destroy(query);
  return total;
}

/* Entity i of the typed source: PartitionKey "p<i % 6>", RowKey "%06d", a property of each of
 * the eight types, and "kind" ("a", "b" or "c"). */
static partkv_entity_t* typed_entity(int i) {
  char pk[16], rk[16], name[32];
  uint8_t guid[16];
  unsigned char blob[3];
  int b;
  partkv_entity_t* e;
  snprintf(pk, sizeof pk, "p%d", i % 6);
  pk_row_key(rk, i);
  e = pk_entity(pk, rk);
  snprintf(name, sizeof name, "item %d", i);
  partkv_entity_set_string(e, TEXT("name"), TEXT(name));
  partkv_entity_set_string(e, TEXT("kind"), i % 3 == 0 ? "a" : i % 3 == 1 ? "b" : "c", 1);
  blob[0] = (unsigned char)i;
  blob[1] = 0;
  blob[2] = 0xff;
  partkv_entity_set_binary(e, TEXT("blob"), blob, sizeof blob);
  partkv_entity_set_bool(e, TEXT("flag"), i % 2);
  partkv_entity_set_datetime(e, TEXT("when"), PARTKV_UNIX_EPOCH_TICKS + (int64_t)i * 10000000);
  partkv_entity_set_double(e, TEXT("ratio"), i / 8.0);
  for (b = 0; b < 16; ++b) guid[b] = (uint8_t)(i + b);
  partkv_entity_set_guid(e, TEXT("id"), guid);
  partkv_entity_set_int32(e, TEXT("n"), i);
  partkv_entity_set_int64(e, TEXT("big"), (int64_t)i * 4000000000LL);
  return e;
}

/* Inserts typed entities 0 .. n-1. 1 on success. */
static int fill_typed(partkv_table_t* table, int n) {
  int i, good = 1;
  for (i = 0; i < n && good; ++i) {
    partkv_entity_t* e = typed_entity(i);
    good = pk_ok(partkv_table_insert(table, e, NULL), __FILE__, __LINE__, "fill_typed");
    partkv_entity_destroy(e);
  }
  return good;
}

/* The source entity's properties as JSON without its system properties. Owned (partkv_free). */
static char* content_of(const partkv_entity_t* e) {
  return partkv_entity_to_json(e, PARTKV_JSON_FULL_METADATA, 0, NULL);
}

/* 1 when the entity at (pk, rk) has the same keys and properties in both tables. */
static int same_entity(const partkv_table_t* a, const partkv_table_t* b, const char* pk,
                       const char* rk) {
  partkv_entity_t* x = NULL;
  partkv_entity_t* y = NULL;
  char* tx;
  char* ty;
  int same;
  if (!pk_ok(partkv_table_get(a, TEXT(pk), TEXT(rk), &x), __FILE__, __LINE__, "get a")) return 0;
  if (!pk_ok(partkv_table_get(b, TEXT(pk), TEXT(rk), &y), __FILE__, __LINE__, "get b")) {
    partkv_entity_destroy(x);
    return 0;
  }
  tx = content_of(x);
  ty = content_of(y);
  same = tx != NULL && ty != NULL && strcmp(tx, ty) == 0;
  if (!same) fprintf(stderr, "  source:      %s\n  destination: %s\n", tx, ty);
  partkv_free(tx);
  partkv_free(ty);
  partkv_entity_destroy(x);
  partkv_entity_destroy(y);
  return same;
}

/* What the progress callback saw. */
typedef struct progress_seen_t {
  int calls;
  uint64_t most_written;
  uint32_t most_units_done;
  uint32_t units;
  int estimated;
} progress_seen_t;

static void on_progress(const partkv_copy_progress_t* progress, void* user_data) {
  progress_seen_t* seen = (progress_seen_t*)user_data;
  ++seen->calls;
  if (progress->rows_written > seen->most_written) seen->most_written = progress->rows_written;
  if (progress->units_done > seen->most_units_done) seen->most_units_done = progress->units_done;
  seen->units = progress->units;
  if (progress->has_source_rows_estimate && progress->source_rows_estimate > 0) seen->estimated = 1;
}

/* A verification of `to` against `from` with `options`: its counts. 1 when it ran. */
static int verify_counts(const partkv_table_t* from, const partkv_table_t* to,
                         const partkv_copy_options_t* options, partkv_verify_counts_t* counts,
                         int* clean) {
  partkv_verify_report_t* report = NULL;
  if (!pk_ok(partkv_verify_copy(from, to, options, 10, &report), __FILE__, __LINE__,
             "partkv_verify_copy")) {
    return 0;
  }
  partkv_verify_report_counts(report, counts);
  *clean = partkv_verify_report_clean(report);
  partkv_verify_report_destroy(report);
  return 1;
}

/* A listed key of `report` is (pk, rk). */
static void check_listed(const partkv_verify_report_t* report, partkv_verify_list_t list,
                         size_t index, const char* pk, const char* rk, int line) {
  size_t pk_length = 0, rk_length = 0;
  const char* row_key = NULL;
  const char* got = partkv_verify_report_key(report, list, index, &pk_length, &row_key, &rk_length);
  if (!pk_text_is(got, pk_length, pk))
    pk_fail_text(__FILE__, line, "listed pk", got, pk_length, pk);
  if (!pk_text_is(row_key, rk_length, rk)) {
    pk_fail_text(__FILE__, line, "listed rk", row_key, rk_length, rk);
  }
}

/* 1 when a file exists at `path`. */
static int file_exists(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return 0;
  fclose(f);
  return 1;
}

/* Local to local: 300 entities of every type, across two stores, on two streams with progress;
 * the copy is verified clean and each entity is the source's. A filtered, selected copy and its
 * verification. */
void test_CopyLocalToLocal(void) {
  partkv_store_t* a = pk_open_store("a", NULL);
  partkv_store_t* b = pk_open_store("b", NULL);
  partkv_table_options_t* four = partkv_table_options_create();
  partkv_copy_options_t* options = partkv_copy_options_create();
  partkv_copy_report_t report;
  partkv_status_t* stopped = NULL;
  partkv_verify_counts_t counts;
  progress_seen_t seen;
  partkv_table_t* from;
  partkv_table_t* to;
  partkv_table_t* some;
  int clean = 0, i;
  REQUIRE(a != NULL && b != NULL);
  partkv_table_options_set_physical_partitions(four, 4);
  from = pk_create_table(a, "Orders", four);
  partkv_table_options_destroy(four);
  to = pk_create_table(b, "Orders", NULL);
  some = pk_create_table(b, "Some", NULL);
  REQUIRE(from != NULL && to != NULL && some != NULL);
  REQUIRE(fill_typed(from, 300));

  memset(&seen, 0, sizeof seen);
  memset(&report, 0xab, sizeof report);
  partkv_copy_options_set_streams(options, 2);
  partkv_copy_options_set_progress(options, on_progress, &seen);
  REQUIRE_OK(partkv_copy_table(from, to, options, &report, &stopped));
  REQUIRE(stopped == NULL);
  CHECK_INT(report.rows_read, 300);
  CHECK_INT(report.rows_written, 300);
  CHECK_INT(report.resent, 0);
  CHECK_INT(report.units_skipped, 0);
  CHECK_INT(report.rows_failed, 0);
  CHECK_INT(report.rekey_collisions, 0);
  CHECK_INT(report.throttled, 0);
  CHECK_INT(report.service_throttled, 0);
  CHECK_INT(report.probes, 0); /* a local source is read by physical partition */
  CHECK_INT(report.units, 4);
  CHECK_INT(report.streams, 2);
  CHECK(report.elapsed_micros > 0);
  CHECK(report.throttled_wait_micros == 0 && report.retry_wait_micros == 0);
  CHECK(seen.calls >= 4);
  CHECK_INT(seen.most_written, 300);
  CHECK_INT(seen.most_units_done, 4);
  CHECK_INT(seen.units, 4);
  CHECK_INT(rows_of(to), 300);
  for (i = 0; i < 300; i += 37) {
    char pk[16], rk[16];
    snprintf(pk, sizeof pk, "p%d", i % 6);
    pk_row_key(rk, i);
    CHECK(same_entity(from, to, pk, rk));
  }
  /* Verified clean, with the defaults (NULL options) as with the copy's. */
  REQUIRE(verify_counts(from, to, NULL, &counts, &clean));
  CHECK_INT(clean, 1);
  CHECK_INT(counts.source_rows, 300);
  CHECK_INT(counts.destination_rows, 300);
  CHECK_INT(counts.missing + counts.extra + counts.different, 0);
  REQUIRE(verify_counts(from, to, options, &counts, &clean));
  CHECK_INT(clean, 1);

  /* The "b" entities with two properties: 100 rows; verified clean with the same options, and
   * against the whole source not. The progress callback removed again. */
  partkv_copy_options_set_progress(options, NULL, NULL);
  partkv_copy_options_set_filter(options, TEXT("kind eq 'b'"));
  partkv_copy_options_add_select(options, TEXT("name"));
  partkv_copy_options_add_select(options, TEXT("big"));
  seen.calls = 0;
  REQUIRE_OK(partkv_copy_table(from, some, options, &report, &stopped));
  REQUIRE(stopped == NULL);
  CHECK_INT(seen.calls, 0);
  CHECK_INT(report.rows_read, 100);
  CHECK_INT(report.rows_written, 100);
  CHECK_INT(rows_of(some), 100);
  {
    partkv_entity_t* got = NULL;
    REQUIRE_OK(partkv_table_get(some, TEXT("p1"), TEXT("000001"), &got));
    CHECK_INT(partkv_entity_property_count(got), 2); /* big, name */
    partkv_entity_destroy(got);
  }
  REQUIRE(verify_counts(from, some, options, &counts, &clean));
  CHECK_INT(clean, 1);
  CHECK_INT(counts.source_rows, 100);
  /* Only the select cleared: the 100 copied are now different, the other 200 missing. */
  partkv_copy_options_clear_select(options);
  REQUIRE(verify_counts(from, some, options, &counts, &clean));
  CHECK_INT(clean, 0);
  CHECK_INT(counts.different, 100);
  partkv_copy_options_set_filter(options, "", 0);
  REQUIRE(verify_counts(from, some, options, &counts, &clean));
  CHECK_INT(counts.source_rows, 300);
  CHECK_INT(counts.missing, 200);
  CHECK_INT(counts.different, 100);
  CHECK_INT(counts.extra, 0);

  partkv_copy_options_destroy(options);
  partkv_copy_options_destroy(NULL);
  partkv_table_close(some);
  partkv_table_close(to);
  partkv_table_close(from);
  partkv_store_close(b);
  partkv_store_close(a);
}

/* An insert copy onto a row the destination has stops naming it; an upsert or a merge copy
 * writes over it. */
void test_CopyInsertConflict(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_copy_options_t* options = partkv_copy_options_create();
  partkv_copy_report_t report, untouched;
  partkv_status_t* stopped = NULL;
  partkv_verify_counts_t counts;
  partkv_table_t* from;
  partkv_table_t* to;
  partkv_entity_t* e;
  int clean = 0;
  size_t length = 0;
  const char* message;
  REQUIRE(store != NULL);
  from = pk_create_table(store, "Source", NULL);
  to = pk_create_table(store, "Target", NULL);
  REQUIRE(from != NULL && to != NULL);
  REQUIRE(fill_typed(from, 120));
  e = pk_entity("p5", "000017");
  partkv_entity_set_string(e, TEXT("name"), TEXT("already here"));
  REQUIRE_OK(partkv_table_insert(to, e, NULL));
  partkv_entity_destroy(e);

  /* The default mode is insert: the copy starts, then stops at the row. */
  REQUIRE_OK(partkv_copy_table(from, to, NULL, &report, &stopped));
  REQUIRE(stopped != NULL);
  CHECK_INT(partkv_status_code(stopped), PARTKV_ALREADY_EXISTS);
  message = partkv_status_message(stopped, &length);
  CHECK_HAS(message, length, "(\"p5\", \"000017\")");
  CHECK_HAS(message, length, "Target");
  CHECK_CODE(stopped, PARTKV_ALREADY_EXISTS, "already has the entity");
  CHECK_INT(report.rows_failed, 1);
  CHECK(report.rows_written < 120);

  /* Upsert: every row written, the one there replaced. */
  partkv_copy_options_set_mode(options, PARTKV_OP_INSERT_OR_REPLACE);
  stopped = NULL;
  REQUIRE_OK(partkv_copy_table(from, to, options, &report, &stopped));
  REQUIRE(stopped == NULL);
  CHECK_INT(report.rows_written, 120);
  CHECK(same_entity(from, to, "p5", "000017"));
  REQUIRE(verify_counts(from, to, options, &counts, &clean));
  CHECK_INT(clean, 1);

  /* Merge: a property only the destination has stays; verified as merged. */
  e = pk_entity("p5", "000017");
  partkv_entity_set_string(e, TEXT("note"), TEXT("kept"));
  REQUIRE_OK(partkv_table_merge(to, e, "*", 1, NULL));
  partkv_entity_destroy(e);
  partkv_copy_options_set_mode(options, PARTKV_OP_INSERT_OR_MERGE);
  REQUIRE_OK(partkv_copy_table(from, to, options, &report, &stopped));
  REQUIRE(stopped == NULL);
  CHECK_INT(report.rows_written, 120);
  {
    partkv_entity_t* got = NULL;
    size_t index = 0;
    REQUIRE_OK(partkv_table_get(to, TEXT("p5"), TEXT("000017"), &got));
    CHECK(partkv_entity_find(got, TEXT("note"), &index));
    CHECK_INT(pk_int32(got, "n", -1), 17);
    partkv_entity_destroy(got);
  }

  /* A mode a copy does not write with is refused by the copy and the verification; the last
   * valid mode set counts again. */
  memset(&untouched, 0x5a, sizeof untouched);
  report = untouched;
  stopped = NULL;
  partkv_copy_options_set_mode(options, PARTKV_OP_DELETE);
  CHECK_CODE(partkv_copy_table(from, to, options, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "mode");
  CHECK(stopped == NULL);
  CHECK(memcmp(&report, &untouched, sizeof report) == 0);
  {
    partkv_verify_report_t* verify = NULL;
    CHECK_CODE(partkv_verify_copy(from, to, options, 10, &verify), PARTKV_INVALID_ARGUMENT, "mode");
    CHECK(verify == NULL);
  }
  partkv_copy_options_set_mode(options, PARTKV_OP_REPLACE);
  CHECK_CODE(partkv_copy_table(from, to, options, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "mode");
  partkv_copy_options_set_mode(options, PARTKV_OP_INSERT);
  REQUIRE_OK(partkv_copy_table(from, to, options, &report, &stopped));
  REQUIRE(stopped != NULL);
  CHECK_CODE(stopped, PARTKV_ALREADY_EXISTS, NULL);

  partkv_copy_options_destroy(options);
  partkv_table_close(to);
  partkv_table_close(from);
  partkv_store_close(store);
}

/* An insert copy with a checkpoint stops at a conflicting row, leaving the checkpoint; the row
 * made the source's, the copy resumes from the checkpoint, finds that row already there, and
 * finishes, deleting the checkpoint. */
void test_CopyResume(void) {
  partkv_store_t* a = pk_open_store("a", NULL);
  partkv_store_t* b = pk_open_store("b", NULL);
  partkv_table_options_t* one = partkv_table_options_create();
  partkv_copy_options_t* options = partkv_copy_options_create();
  partkv_copy_options_t* other = partkv_copy_options_create();
  partkv_copy_report_t report;
  partkv_status_t* stopped = NULL;
  partkv_verify_counts_t counts;
  partkv_table_t* from;
  partkv_table_t* to;
  partkv_entity_t* e;
  char checkpoint[PK_PATH_MAX];
  uint64_t written_first;
  int clean = 0;
  REQUIRE(a != NULL && b != NULL);
  partkv_table_options_set_physical_partitions(one, 1); /* one unit, read in key order */
  from = pk_create_table(a, "Orders", one);
  partkv_table_options_destroy(one);
  to = pk_create_table(b, "Orders", NULL);
  REQUIRE(from != NULL && to != NULL);
  REQUIRE(pk_fill(from, "p", 200));
  e = pk_entity("p", "000055");
  partkv_entity_set_int32(e, TEXT("n"), -1);
  REQUIRE_OK(partkv_table_insert(to, e, NULL));

  pk_path(checkpoint, "orders.copy");
  partkv_copy_options_set_checkpoint(options, TEXT(checkpoint));
  partkv_copy_options_set_identity(options, TEXT("from a to b"));
  partkv_copy_options_set_max_group_rows(options, 10);
  partkv_copy_options_set_max_batches_in_flight(options, 2);
  partkv_copy_options_set_retry_throttled(options, 3, 10, 100, 1000);

  /* Resume with no checkpoint yet: NotFound. */
  partkv_copy_options_set_resume(options, 1);
  CHECK_CODE(partkv_copy_table(from, to, options, &report, &stopped), PARTKV_NOT_FOUND,
             "no checkpoint");
  partkv_copy_options_set_resume(options, 0);

  /* The first run stops at row 55; the rows of the groups before it are written. */
  REQUIRE_OK(partkv_copy_table(from, to, options, &report, &stopped));
  REQUIRE(stopped != NULL);
  CHECK_CODE(stopped, PARTKV_ALREADY_EXISTS, "(\"p\", \"000055\")");
  stopped = NULL;
  CHECK(file_exists(checkpoint));
  CHECK_INT(report.units, 1);
  written_first = report.rows_written;
  CHECK(written_first > 0 && written_first <= 55);
  CHECK_INT(rows_of(to), (int)written_first + 1);

  /* Without resume the checkpoint is in the way; another copy's options may not resume it. */
  CHECK_CODE(partkv_copy_table(from, to, options, &report, &stopped), PARTKV_ALREADY_EXISTS,
             "exists");
  partkv_copy_options_set_checkpoint(other, TEXT(checkpoint));
  partkv_copy_options_set_resume(other, 1);
  partkv_copy_options_set_identity(other, TEXT("from c to d"));
  CHECK_CODE(partkv_copy_table(from, to, other, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "of another copy");
  partkv_copy_options_set_identity(other, TEXT("from a to b"));
  partkv_copy_options_set_mode(other, PARTKV_OP_INSERT_OR_MERGE);
  CHECK_CODE(partkv_copy_table(from, to, other, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "its options");
  CHECK(file_exists(checkpoint));

  /* The conflicting row made the source's: the resumed copy finds it there (resent), sends the
   * rest and deletes the checkpoint. */
  partkv_entity_set_int32(e, TEXT("n"), 55);
  REQUIRE_OK(partkv_table_insert_or_replace(to, e, NULL));
  partkv_copy_options_set_resume(options, 1);
  REQUIRE_OK(partkv_copy_table(from, to, options, &report, &stopped));
  REQUIRE(stopped == NULL);
  CHECK_INT(report.resent, 1);
  CHECK_INT(report.rows_read, 200 - written_first);
  CHECK_INT(report.rows_written, 200 - written_first - 1);
  CHECK_INT(report.units_skipped, 0);
  CHECK(!file_exists(checkpoint));
  CHECK_INT(rows_of(to), 200);
  REQUIRE(verify_counts(from, to, options, &counts, &clean));
  CHECK_INT(clean, 1);
  CHECK_INT(counts.destination_rows, 200);

  /* Finished: nothing to resume. */
  CHECK_CODE(partkv_copy_table(from, to, options, &report, &stopped), PARTKV_NOT_FOUND, NULL);

  partkv_entity_destroy(e);
  partkv_copy_options_destroy(other);
  partkv_copy_options_destroy(options);
  partkv_table_close(to);
  partkv_table_close(from);
  partkv_store_close(b);
  partkv_store_close(a);
}

/* Re-keying with hash-suffix and concat, keeping the old keys and the Timestamp as properties;
 * the schemes a copy refuses; two entities mapped to one key. */
void test_CopyRekey(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_copy_options_t* options = partkv_copy_options_create();
  partkv_copy_options_t* bad = partkv_copy_options_create();
  partkv_key_strategy_t* pk_scheme = NULL;
  partkv_key_strategy_t* rk_scheme = NULL;
  partkv_key_strategy_t* by_date = NULL;
  partkv_key_strategy_t* random = NULL;
  partkv_copy_report_t report;
  partkv_status_t* stopped = NULL;
  partkv_verify_counts_t counts;
  partkv_table_t* from;
  partkv_table_t* to;
  partkv_table_t* collide;
  int clean = 0, i;
  REQUIRE(store != NULL);
  from = pk_create_table(store, "Orders", NULL);
  to = pk_create_table(store, "ByDate", NULL);
  collide = pk_create_table(store, "Collide", NULL);
  REQUIRE(from != NULL && to != NULL && collide != NULL);
  for (i = 0; i < 90; ++i) {
    char pk[16], order[16], date[16];
    partkv_entity_t* e;
    snprintf(pk, sizeof pk, "customer-%d", i % 7);
    snprintf(order, sizeof order, "o%04d", i);
    snprintf(date, sizeof date, "2026-01-0%d", i % 3 + 1);
    e = pk_entity(pk, order);
    partkv_entity_set_string(e, TEXT("orderId"), TEXT(order));
    partkv_entity_set_string(e, TEXT("date"), TEXT(date));
    partkv_entity_set_double(e, TEXT("amount"), i * 1.5);
    REQUIRE_OK(partkv_table_insert(from, e, NULL));
    partkv_entity_destroy(e);
  }
  REQUIRE_OK(partkv_key_strategy_parse(TEXT("hash-suffix(date,orderId,4)"), &pk_scheme));
  REQUIRE_OK(partkv_key_strategy_parse(TEXT("concat(orderId)"), &rk_scheme));
  partkv_copy_options_set_partition_key_scheme(options, pk_scheme);
  partkv_copy_options_set_row_key_scheme(options, rk_scheme);
  partkv_copy_options_set_keep_keys_as(options, TEXT("OldPK"), TEXT("OldRK"));
  partkv_copy_options_set_keep_timestamp_as(options, TEXT("SourceTime"));
  REQUIRE_OK(partkv_copy_table(from, to, options, &report, &stopped));
  REQUIRE(stopped == NULL);
  CHECK_INT(report.rows_written, 90);
  CHECK_INT(rows_of(to), 90);

  /* Each entity under the keys the schemes compute, with its old keys and Timestamp. */
  for (i = 0; i < 90; i += 11) {
    char pk[16], order[16];
    partkv_entity_t* source = NULL;
    partkv_entity_t* copied = NULL;
    char* key = NULL;
    size_t key_length = 0, index = 0, length = 0;
    const char* text;
    snprintf(pk, sizeof pk, "customer-%d", i % 7);
    snprintf(order, sizeof order, "o%04d", i);
    REQUIRE_OK(partkv_table_get(from, TEXT(pk), TEXT(order), &source));
    REQUIRE_OK(partkv_key_strategy_compute(pk_scheme, source, &key, &key_length));
    CHECK_OK(partkv_table_get(to, key, key_length, TEXT(order), &copied));
    partkv_free(key);
    if (copied != NULL) {
      REQUIRE(partkv_entity_find(copied, TEXT("OldPK"), &index));
      text = partkv_entity_property_string(copied, index, &length);
      CHECK_TEXT(text, length, pk);
      REQUIRE(partkv_entity_find(copied, TEXT("OldRK"), &index));
      text = partkv_entity_property_string(copied, index, &length);
      CHECK_TEXT(text, length, order);
      REQUIRE(partkv_entity_find(copied, TEXT("SourceTime"), &index));
      CHECK_INT(partkv_entity_property_type(copied, index), PARTKV_TYPE_DATETIME);
      CHECK(partkv_entity_property_datetime(copied, index) == partkv_entity_timestamp(source));
      CHECK(partkv_entity_timestamp(source) > PARTKV_UNIX_EPOCH_TICKS);
    }
    partkv_entity_destroy(copied);
    partkv_entity_destroy(source);
  }

  /* Verified clean with the copy's options; without the re-keying every image is missing, and
   * every destination entity extra. */
  REQUIRE(verify_counts(from, to, options, &counts, &clean));
  CHECK_INT(clean, 1);
  CHECK_INT(counts.source_rows, 90);
  REQUIRE(verify_counts(from, to, NULL, &counts, &clean));
  CHECK_INT(clean, 0);
  CHECK_INT(counts.missing, 90);
  CHECK_INT(counts.extra, 90);

  /* Refused before anything is written: random-suffix, keep-keys-as without re-keying or with
   * one name, a keep-as name given twice, 0 or 65 streams, zero bounds, resume without a
   * checkpoint, the source as the destination, a bad filter. */
  REQUIRE_OK(partkv_key_strategy_parse(TEXT("random-suffix(date,8)"), &random));
  partkv_copy_options_set_partition_key_scheme(bad, random);
  CHECK_CODE(partkv_copy_table(from, collide, bad, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "random-suffix");
  partkv_copy_options_set_partition_key_scheme(bad, NULL);
  partkv_copy_options_set_keep_keys_as(bad, TEXT("OldPK"), TEXT("OldRK"));
  CHECK_CODE(partkv_copy_table(from, collide, bad, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "keep-keys-as");
  partkv_copy_options_set_row_key_scheme(bad, rk_scheme);
  partkv_copy_options_set_keep_keys_as(bad, TEXT("OldPK"), NULL, 0);
  CHECK_CODE(partkv_copy_table(from, collide, bad, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "keep-keys-as");
  partkv_copy_options_set_keep_keys_as(bad, TEXT("Old"), TEXT("Old"));
  CHECK_CODE(partkv_copy_table(from, collide, bad, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "twice");
  partkv_copy_options_set_keep_keys_as(bad, NULL, 0, NULL, 0);
  partkv_copy_options_set_row_key_scheme(bad, NULL);
  partkv_copy_options_set_streams(bad, 0);
  CHECK_CODE(partkv_copy_table(from, collide, bad, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "streams");
  partkv_copy_options_set_streams(bad, 65);
  CHECK_CODE(partkv_copy_table(from, collide, bad, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "streams");
  partkv_copy_options_set_streams(bad, 1);
  partkv_copy_options_set_max_group_rows(bad, 0);
  CHECK_CODE(partkv_copy_table(from, collide, bad, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "max_group_rows");
  partkv_copy_options_set_max_group_rows(bad, 100);
  partkv_copy_options_set_max_batches_in_flight(bad, 0);
  CHECK_CODE(partkv_copy_table(from, collide, bad, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "max_batches_in_flight");
  partkv_copy_options_set_max_batches_in_flight(bad, 1);
  partkv_copy_options_set_resume(bad, 1);
  CHECK_CODE(partkv_copy_table(from, collide, bad, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "checkpoint");
  partkv_copy_options_set_resume(bad, 0);
  CHECK_CODE(partkv_copy_table(from, from, bad, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "one table");
  partkv_copy_options_set_filter(bad, TEXT("amount gt"));
  CHECK_CODE(partkv_copy_table(from, collide, bad, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "filter");
  CHECK_CODE(partkv_verify_copy(from, collide, bad, 10, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK(stopped == NULL);
  CHECK_INT(rows_of(collide), 0);

  /* Every order of a date mapped to one key: the second one stops the copy, naming both. */
  REQUIRE_OK(partkv_key_strategy_parse(TEXT("concat(date)"), &by_date));
  partkv_copy_options_set_filter(bad, "", 0);
  partkv_copy_options_set_partition_key_scheme(bad, by_date);
  partkv_copy_options_set_row_key_scheme(bad, by_date);
  REQUIRE_OK(partkv_copy_table(from, collide, bad, &report, &stopped));
  REQUIRE(stopped != NULL);
  CHECK_CODE(stopped, PARTKV_ALREADY_EXISTS, "re-keying maps source entities");
  CHECK_INT(report.rekey_collisions, 1);
  CHECK_INT(report.rows_failed, 1);

  partkv_key_strategy_destroy(by_date);
  partkv_key_strategy_destroy(random);
  partkv_key_strategy_destroy(rk_scheme);
  partkv_key_strategy_destroy(pk_scheme);
  partkv_copy_options_destroy(bad);
  partkv_copy_options_destroy(options);
  partkv_table_close(collide);
  partkv_table_close(to);
  partkv_table_close(from);
  partkv_store_close(store);
}

/* A verification after a copy was changed: an entity deleted (missing, named by both its keys),
 * one changed (different), one added (extra); the lists bounded by max_listed. */
void test_VerifyCopy(void) {
  partkv_store_t* a = pk_open_store("a", NULL);
  partkv_store_t* b = pk_open_store("b", NULL);
  partkv_copy_report_t report;
  partkv_status_t* stopped = NULL;
  partkv_verify_report_t* verify = NULL;
  partkv_verify_report_t* marker;
  partkv_verify_counts_t counts;
  partkv_table_t* from;
  partkv_table_t* to;
  partkv_entity_t* e;
  size_t length = 99;
  const char* row_key = NULL;
  REQUIRE(a != NULL && b != NULL);
  from = pk_create_table(a, "Orders", NULL);
  to = pk_create_table(b, "Orders", NULL);
  REQUIRE(from != NULL && to != NULL);
  REQUIRE(fill_typed(from, 240));
  REQUIRE_OK(partkv_copy_table(from, to, NULL, &report, &stopped));
  REQUIRE(stopped == NULL);

  /* Clean: nothing listed. */
  REQUIRE_OK(partkv_verify_copy(from, to, NULL, 10, &verify));
  CHECK_INT(partkv_verify_report_clean(verify), 1);
  CHECK_INT(partkv_verify_report_listed(verify, PARTKV_VERIFY_MISSING), 0);
  CHECK(partkv_verify_report_key(verify, PARTKV_VERIFY_MISSING, 0, &length, &row_key, NULL) ==
        NULL);
  partkv_verify_report_destroy(verify);
  verify = NULL;

  REQUIRE_OK(partkv_table_delete(to, TEXT("p1"), TEXT("000007"), NULL, 0, NULL));
  e = typed_entity(8);
  partkv_entity_set_int32(e, TEXT("n"), -8);
  REQUIRE_OK(partkv_table_insert_or_replace(to, e, NULL));
  partkv_entity_destroy(e);
  e = pk_entity("zz", "extra");
  REQUIRE_OK(partkv_table_insert(to, e, NULL));
  partkv_entity_destroy(e);

  REQUIRE_OK(partkv_verify_copy(from, to, NULL, 10, &verify));
  CHECK_INT(partkv_verify_report_clean(verify), 0);
  memset(&counts, 0, sizeof counts);
  partkv_verify_report_counts(verify, &counts);
  CHECK_INT(counts.source_rows, 240);
  CHECK_INT(counts.destination_rows, 240);
  CHECK_INT(counts.missing, 1);
  CHECK_INT(counts.extra, 1);
  CHECK_INT(counts.different, 1);
  REQUIRE_INT(partkv_verify_report_listed(verify, PARTKV_VERIFY_MISSING), 1);
  CHECK_INT(partkv_verify_report_listed(verify, PARTKV_VERIFY_MISSING_SOURCE), 1);
  CHECK_INT(partkv_verify_report_listed(verify, PARTKV_VERIFY_EXTRA), 1);
  CHECK_INT(partkv_verify_report_listed(verify, PARTKV_VERIFY_DIFFERENT), 1);
  check_listed(verify, PARTKV_VERIFY_MISSING, 0, "p1", "000007", __LINE__);
  check_listed(verify, PARTKV_VERIFY_MISSING_SOURCE, 0, "p1", "000007", __LINE__);
  check_listed(verify, PARTKV_VERIFY_EXTRA, 0, "zz", "extra", __LINE__);
  check_listed(verify, PARTKV_VERIFY_DIFFERENT, 0, "p2", "000008", __LINE__);
  /* Lengths may be NULL; an index out of range, or a list that is none, is NULL. */
  CHECK_STR(partkv_verify_report_key(verify, PARTKV_VERIFY_EXTRA, 0, NULL, &row_key, NULL), "zz");
  CHECK_STR(row_key, "extra");
  CHECK(partkv_verify_report_key(verify, PARTKV_VERIFY_EXTRA, 0, NULL, NULL, NULL) != NULL);
  CHECK(partkv_verify_report_key(verify, PARTKV_VERIFY_EXTRA, 1, &length, &row_key, NULL) == NULL);
  CHECK(partkv_verify_report_key(verify, (partkv_verify_list_t)9, 0, &length, &row_key, NULL) ==
        NULL);
  CHECK_INT(partkv_verify_report_listed(verify, (partkv_verify_list_t)-1), 0);
  partkv_verify_report_destroy(verify);

  /* max_listed 0: the counts alone. */
  verify = NULL;
  REQUIRE_OK(partkv_verify_copy(from, to, NULL, 0, &verify));
  partkv_verify_report_counts(verify, &counts);
  CHECK_INT(counts.missing + counts.extra + counts.different, 3);
  CHECK_INT(partkv_verify_report_listed(verify, PARTKV_VERIFY_MISSING), 0);
  CHECK_INT(partkv_verify_report_listed(verify, PARTKV_VERIFY_DIFFERENT), 0);
  partkv_verify_report_destroy(verify);

  /* A dropped destination: NotFound, the report untouched. */
  REQUIRE_OK(partkv_store_drop_table(b, TEXT("Orders")));
  marker = (partkv_verify_report_t*)&counts;
  verify = marker;
  CHECK_CODE(partkv_verify_copy(from, to, NULL, 10, &verify), PARTKV_NOT_FOUND, NULL);
  CHECK(verify == marker);

  partkv_table_close(to);
  partkv_table_close(from);
  partkv_store_close(b);
  partkv_store_close(a);
}

/* NULL handles and out parameters: PARTKV_INVALID_ARGUMENT naming them, setters and accessors of
 * NULL do nothing or answer 0 / NULL. */
void test_CopyNullArguments(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_copy_report_t report;
  partkv_status_t* stopped = NULL;
  partkv_verify_report_t* verify = NULL;
  partkv_verify_counts_t counts;
  partkv_table_t* table;
  size_t length = 99;
  REQUIRE(store != NULL);
  table = pk_create_table(store, "Things", NULL);
  REQUIRE(table != NULL);
  CHECK_CODE(partkv_copy_table(NULL, table, NULL, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "from");
  CHECK_CODE(partkv_copy_table(table, NULL, NULL, &report, &stopped), PARTKV_INVALID_ARGUMENT,
             "to");
  CHECK_CODE(partkv_copy_table(table, table, NULL, NULL, &stopped), PARTKV_INVALID_ARGUMENT,
             "report");
  CHECK_CODE(partkv_copy_table(table, table, NULL, &report, NULL), PARTKV_INVALID_ARGUMENT,
             "stopped");
  CHECK(stopped == NULL);
  CHECK_CODE(partkv_verify_copy(NULL, table, NULL, 10, &verify), PARTKV_INVALID_ARGUMENT, "from");
  CHECK_CODE(partkv_verify_copy(table, NULL, NULL, 10, &verify), PARTKV_INVALID_ARGUMENT, "to");
  CHECK_CODE(partkv_verify_copy(table, table, NULL, 10, NULL), PARTKV_INVALID_ARGUMENT, "report");
  CHECK(verify == NULL);
  /* A table verified against itself is clean (the copy refuses it). */
  REQUIRE_OK(partkv_verify_copy(table, table, NULL, 10, &verify));
  CHECK_INT(partkv_verify_report_clean(verify), 1);
  partkv_verify_report_counts(verify, NULL);
  partkv_verify_report_destroy(verify);

  partkv_copy_options_set_filter(NULL, TEXT("x eq 1"));
  partkv_copy_options_add_select(NULL, TEXT("x"));
  partkv_copy_options_clear_select(NULL);
  partkv_copy_options_set_mode(NULL, PARTKV_OP_INSERT);
  partkv_copy_options_set_partition_key_scheme(NULL, NULL);
  partkv_copy_options_set_row_key_scheme(NULL, NULL);
  partkv_copy_options_set_keep_keys_as(NULL, TEXT("a"), TEXT("b"));
  partkv_copy_options_set_keep_timestamp_as(NULL, TEXT("t"));
  partkv_copy_options_set_streams(NULL, 2);
  partkv_copy_options_set_max_batches_in_flight(NULL, 2);
  partkv_copy_options_set_max_group_rows(NULL, 2);
  partkv_copy_options_set_retry_throttled(NULL, 1, 1, 1, 1);
  partkv_copy_options_set_checkpoint(NULL, TEXT("x"));
  partkv_copy_options_set_resume(NULL, 1);
  partkv_copy_options_set_identity(NULL, TEXT("x"));
  partkv_copy_options_set_progress(NULL, on_progress, NULL);
  memset(&counts, 0x11, sizeof counts);
  partkv_verify_report_counts(NULL, &counts);
  CHECK_INT(counts.missing, 0x1111111111111111LL);
  CHECK_INT(partkv_verify_report_clean(NULL), 0);
  CHECK_INT(partkv_verify_report_listed(NULL, PARTKV_VERIFY_EXTRA), 0);
  CHECK(partkv_verify_report_key(NULL, PARTKV_VERIFY_EXTRA, 0, &length, NULL, NULL) == NULL);
  partkv_verify_report_destroy(NULL);

  partkv_table_close(table);
  partkv_store_close(store);
}
