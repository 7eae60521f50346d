/* Stored access policies and the bulk writer (partkv/c.h "Stored access policies",
 * "Bulk writer"; partkv/table_info.h, table.h, bulk_writer.h). */

#include <stdlib.h>

#include "harness.h"

/* Rows of the whole table. */
static int count_rows(const partkv_table_t* table) {
  partkv_query_t* query = partkv_query_create();
  partkv_page_t* page = partkv_page_create();
  size_t length = 0;
  const char* token;
  int total = 0;
  for (;;) {
    if (!pk_ok(partkv_table_query(table, query, page), __FILE__, __LINE__, "count_rows")) {
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

static void check_policy(const partkv_access_policies_t* policies, size_t index, const char* id,
                         int has_start, int64_t start, int has_expiry, int64_t expiry,
                         const char* permission, int line) {
  size_t id_length = 0, permission_length = 0;
  int got_has_start = -1, got_has_expiry = -1;
  int64_t got_start = -1, got_expiry = -1;
  const char* got_permission = NULL;
  const char* got_id =
      partkv_access_policies_get(policies, index, &id_length, &got_has_start, &got_start,
                                 &got_has_expiry, &got_expiry, &got_permission, &permission_length);
  if (!pk_text_is(got_id, id_length, id)) {
    pk_fail_text(__FILE__, line, "policy id", got_id, id_length, id);
    return;
  }
  if (got_has_start != has_start)
    pk_fail_int(__FILE__, line, "has_start", got_has_start, has_start);
  if (got_start != start) pk_fail_int(__FILE__, line, "start", got_start, start);
  if (got_has_expiry != has_expiry) {
    pk_fail_int(__FILE__, line, "has_expiry", got_has_expiry, has_expiry);
  }
  if (got_expiry != expiry) pk_fail_int(__FILE__, line, "expiry", got_expiry, expiry);
  if (!pk_text_is(got_permission, permission_length, permission)) {
    pk_fail_text(__FILE__, line, "permission", got_permission, permission_length, permission);
  }
}

void test_AccessPolicies(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_t* table;
  partkv_access_policies_t* policies = partkv_access_policies_create();
  partkv_access_policies_t* stored = NULL;
  partkv_access_policies_t* bad;
  partkv_access_policies_t* marker;
  int64_t start = 0, expiry = 0;
  size_t length = 0;
  int i;
  REQUIRE(store != NULL);
  REQUIRE(policies != NULL);
  table = pk_create_table(store, "Shared", NULL);
  REQUIRE(table != NULL);
  REQUIRE_OK(partkv_datetime_parse("2024-01-01T00:00:00Z", 20, &start));
  REQUIRE_OK(partkv_datetime_parse("2030-01-01T00:00:00Z", 20, &expiry));

  /* None at first. */
  REQUIRE_OK(partkv_table_access_policies(table, &stored));
  CHECK_INT(partkv_access_policies_count(stored), 0);
  CHECK(partkv_access_policies_get(stored, 0, &length, NULL, NULL, NULL, NULL, NULL, NULL) == NULL);
  partkv_access_policies_destroy(stored);
  partkv_access_policies_destroy(NULL);

  /* Two policies, in the order set, the texts (pointer, length). */
  partkv_access_policies_add(policies, "read-onlyXYZ", 9, 1, start, 1, expiry, "rX", 1);
  partkv_access_policies_add(policies, "writer", 6, 0, 123, 0, 456, "raud", 4);
  CHECK_INT(partkv_access_policies_count(policies), 2);
  check_policy(policies, 0, "read-only", 1, start, 1, expiry, "r", __LINE__);
  check_policy(policies, 1, "writer", 0, 0, 0, 0, "raud", __LINE__); /* absent: 0 */
  REQUIRE_OK(partkv_table_set_access_policies(table, policies));
  stored = NULL;
  REQUIRE_OK(partkv_table_access_policies(table, &stored));
  REQUIRE_INT(partkv_access_policies_count(stored), 2);
  check_policy(stored, 0, "read-only", 1, start, 1, expiry, "r", __LINE__);
  check_policy(stored, 1, "writer", 0, 0, 0, 0, "raud", __LINE__);
  CHECK(partkv_access_policies_get(stored, 2, &length, NULL, NULL, NULL, NULL, NULL, NULL) == NULL);
  partkv_access_policies_destroy(stored);

  /* Refused: a bad permission letter, a start after the expiry, a repeated id, six policies.
   * The stored ones stay. */
  bad = partkv_access_policies_create();
  partkv_access_policies_add(bad, "x", 1, 0, 0, 0, 0, "rx", 2);
  CHECK_CODE(partkv_table_set_access_policies(table, bad), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_access_policies_destroy(bad);
  bad = partkv_access_policies_create();
  partkv_access_policies_add(bad, "late", 4, 1, expiry, 1, start, "r", 1);
  CHECK_CODE(partkv_table_set_access_policies(table, bad), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_access_policies_destroy(bad);
  bad = partkv_access_policies_create();
  partkv_access_policies_add(bad, "same", 4, 0, 0, 0, 0, "r", 1);
  partkv_access_policies_add(bad, "same", 4, 0, 0, 0, 0, "a", 1);
  CHECK_CODE(partkv_table_set_access_policies(table, bad), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_access_policies_destroy(bad);
  bad = partkv_access_policies_create();
  for (i = 0; i < 6; ++i) {
    char id[32];
    snprintf(id, sizeof id, "p%d", i);
    partkv_access_policies_add(bad, id, strlen(id), 0, 0, 0, 0, "r", 1);
  }
  CHECK_CODE(partkv_table_set_access_policies(table, bad), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_access_policies_destroy(bad);
  CHECK_CODE(partkv_table_set_access_policies(table, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_set_access_policies(NULL, policies), PARTKV_INVALID_ARGUMENT, NULL);

  /* Durable: after a reopen the same two. */
  partkv_table_close(table);
  partkv_store_close(store);
  store = pk_open_store("store", NULL);
  REQUIRE(store != NULL);
  table = NULL;
  REQUIRE_OK(partkv_store_open_table(store, "Shared", 6, NULL, NULL, &table));
  stored = NULL;
  REQUIRE_OK(partkv_table_access_policies(table, &stored));
  REQUIRE_INT(partkv_access_policies_count(stored), 2);
  check_policy(stored, 1, "writer", 0, 0, 0, 0, "raud", __LINE__);
  partkv_access_policies_destroy(stored);

  /* An empty list removes them; a dropped table is NotFound. */
  bad = partkv_access_policies_create();
  REQUIRE_OK(partkv_table_set_access_policies(table, bad));
  stored = NULL;
  REQUIRE_OK(partkv_table_access_policies(table, &stored));
  CHECK_INT(partkv_access_policies_count(stored), 0);
  partkv_access_policies_destroy(stored);
  REQUIRE_OK(partkv_store_drop_table(store, "Shared", 6));
  marker = bad;
  stored = marker;
  CHECK_CODE(partkv_table_access_policies(table, &stored), PARTKV_NOT_FOUND, NULL);
  CHECK(stored == marker);
  CHECK_CODE(partkv_table_set_access_policies(table, policies), PARTKV_NOT_FOUND, NULL);
  CHECK_CODE(partkv_table_access_policies(table, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_access_policies_destroy(bad);
  partkv_access_policies_destroy(policies);
  partkv_table_close(table);
  partkv_store_close(store);
}

/* Every option's setter; upserts, groups of at most 50 rows. */
static void bulk_set_options(partkv_bulk_writer_options_t* options) {
  partkv_bulk_writer_options_set_mode(options, PARTKV_OP_INSERT_OR_REPLACE);
  partkv_bulk_writer_options_set_group_bounds(options, 50, 1u << 20);
  partkv_bulk_writer_options_set_sync(options, 0);
  partkv_bulk_writer_options_set_threads(options, 2);
  partkv_bulk_writer_options_set_max_batches_in_flight(options, 4);
  partkv_bulk_writer_options_set_retry_throttled(options, 0, 0, 0, 0);
}

/* 120 rows by add (the entity is copied), then 4 rows in JSON Lines over two calls. */
static void bulk_add_rows(partkv_bulk_writer_t* writer) {
  partkv_bulk_report_t report;
  partkv_entity_t* e;
  char rk[16];
  int i;
  static const char kLines1[] =
      "{\"PartitionKey\":\"j\",\"RowKey\":\"000000\",\"n\":0}\n"
      "\n"
      "{\"PartitionKey\":\"j\",\"RowKey\":\"000001\",\"n\":1}\n";
  static const char kLines2[] =
      "{\"PartitionKey\":\"j\",\"RowKey\":\"000002\",\"n\":2}\r\n"
      "{\"PartitionKey\":\"p\",\"RowKey\":\"000007\",\"n\":-7}"; /* the last line may lack \n */
  e = pk_entity("p", "");
  for (i = 0; i < 120; ++i) {
    pk_row_key(rk, i);
    partkv_entity_set_row_key(e, rk, strlen(rk));
    partkv_entity_set_int32(e, "n", 1, i);
    REQUIRE_OK(partkv_bulk_writer_add(writer, e));
  }
  partkv_entity_destroy(e);
  REQUIRE_OK(partkv_bulk_writer_add_json_lines(writer, kLines1, strlen(kLines1)));
  REQUIRE_OK(partkv_bulk_writer_add_json_lines(writer, kLines2, strlen(kLines2)));
  partkv_bulk_writer_report(writer, &report);
  CHECK_INT(report.lines_added, 5);
  CHECK(partkv_bulk_writer_error(writer) == NULL);
}

/* flush writes every row taken so far, a group that is not full included. */
static void bulk_flush(partkv_bulk_writer_t* writer, partkv_table_t* table) {
  partkv_bulk_report_t report;
  partkv_entity_t* got = NULL;
  REQUIRE_OK(partkv_bulk_writer_flush(writer));
  partkv_bulk_writer_report(writer, &report);
  CHECK_INT(report.rows_added, 124);
  CHECK_INT(report.rows_written, 124);
  CHECK(report.groups_written >= 3); /* at most 50 rows each */
  CHECK_INT(count_rows(table), 123); /* p/000007 twice: an upsert, the later wins */
  REQUIRE_OK(partkv_table_get(table, "p", 1, "000007", 6, &got));
  CHECK_INT(pk_int32(got, "n", 0), -7);
  partkv_entity_destroy(got);
}

/* finish writes the rest; after it, InvalidArgument. Destroys the writer. */
static void bulk_finish(partkv_bulk_writer_t* writer) {
  partkv_bulk_report_t report;
  partkv_entity_t* e;
  REQUIRE_OK(partkv_bulk_writer_finish(writer));
  partkv_bulk_writer_report(writer, &report);
  CHECK_INT(report.rows_written, 124);
  CHECK(report.batches_written >= 3); /* p's 100 and 20, j's 3, p's 1 */
  CHECK_INT(report.throttled, 0);
  CHECK_INT(report.throttled_wait_micros, 0);
  CHECK_INT(report.has_bad_row, 0);
  CHECK_INT(report.bad_line, 0);
  CHECK_INT(report.also_written_rows, 0);
  CHECK(partkv_bulk_writer_error(writer) == NULL);
  /* After finish, InvalidArgument. */
  e = pk_entity("late", "r");
  CHECK_CODE(partkv_bulk_writer_add(writer, e), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_entity_destroy(e);
  partkv_bulk_writer_destroy(writer);
  partkv_bulk_writer_destroy(NULL);
}

/* Bad options and arguments; *writer unchanged. */
static void bulk_bad_options(partkv_table_t* table, partkv_bulk_writer_options_t* options) {
  partkv_bulk_writer_t* writer;
  partkv_bulk_writer_t* marker;
  partkv_bulk_report_t report;
  marker = (partkv_bulk_writer_t*)&report;
  writer = marker;
  partkv_bulk_writer_options_set_mode(options, PARTKV_OP_DELETE);
  CHECK_CODE(partkv_bulk_writer_create(table, options, &writer), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_bulk_writer_options_set_mode(options, PARTKV_OP_INSERT);
  partkv_bulk_writer_options_set_group_bounds(options, 0, 1u << 20);
  CHECK_CODE(partkv_bulk_writer_create(table, options, &writer), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_bulk_writer_options_set_group_bounds(options, 100, 1u << 20);
  CHECK_CODE(partkv_bulk_writer_create(NULL, options, &writer), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK(writer == marker);
  CHECK_CODE(partkv_bulk_writer_create(table, options, NULL), PARTKV_INVALID_ARGUMENT, NULL);
}

/* Destroying a writer without finish drops the rows not yet written. */
static void bulk_destroy_without_finish(partkv_table_t* table) {
  partkv_bulk_writer_t* writer = NULL;
  partkv_entity_t* e;
  REQUIRE_OK(partkv_bulk_writer_create(table, NULL, &writer)); /* the defaults */
  e = pk_entity("dropped", "r");
  REQUIRE_OK(partkv_bulk_writer_add(writer, e));
  partkv_entity_destroy(e);
  partkv_bulk_writer_destroy(writer);
  CHECK_INT(count_rows(table), 123);
}

/* The options' setters on NULL do nothing. */
static void bulk_option_setters_on_null(void) {
  partkv_bulk_writer_options_set_mode(NULL, PARTKV_OP_INSERT);
  partkv_bulk_writer_options_set_group_bounds(NULL, 1, 1);
  partkv_bulk_writer_options_set_sync(NULL, 1);
  partkv_bulk_writer_options_set_validate_before_writing(NULL, 1, NULL, 0);
  partkv_bulk_writer_options_set_threads(NULL, 1);
  partkv_bulk_writer_options_set_max_batches_in_flight(NULL, 1);
  partkv_bulk_writer_options_set_retry_throttled(NULL, 1, 1, 1, 1);
}

void test_BulkWriter(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_t* table;
  partkv_bulk_writer_options_t* options = partkv_bulk_writer_options_create();
  partkv_bulk_writer_t* writer = NULL;
  REQUIRE(store != NULL);
  REQUIRE(options != NULL);
  table = pk_create_table(store, "Bulk", NULL);
  REQUIRE(table != NULL);
  bulk_set_options(options);
  REQUIRE_OK(partkv_bulk_writer_create(table, options, &writer));
  REQUIRE(writer != NULL);
  STEP(bulk_add_rows(writer));
  STEP(bulk_flush(writer, table));
  STEP(bulk_finish(writer));
  bulk_bad_options(table, options);
  STEP(bulk_destroy_without_finish(table));
  partkv_bulk_writer_options_destroy(options);
  partkv_bulk_writer_options_destroy(NULL);
  bulk_option_setters_on_null();
  partkv_table_close(table);
  partkv_store_close(store);
}

/* tests/api/bulk_writer_test.cc JsonLinesAreNumberedAcrossCallsAndABadLineNamesItsLine, and a
 * bad row given by add; streaming and validating first. */
static void bad_line(int validate_first) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_t* table;
  partkv_bulk_writer_options_t* options = partkv_bulk_writer_options_create();
  partkv_bulk_writer_t* writer = NULL;
  partkv_bulk_report_t report;
  partkv_status_t* s;
  partkv_status_t* copy;
  partkv_entity_t* e;
  size_t length = 0, copy_length = 0;
  const char* message;
  const char* copy_message;
  static const char kFirst[] = "{\"PartitionKey\":\"p\",\"RowKey\":\"1\",\"n\":1}\n\n   \r\n";
  static const char kSecond[] =
      "{\"PartitionKey\":\"p\",\"RowKey\":\"2\",\"n\":2}\r\n"
      "{\"PartitionKey\":\"p\",\"RowKey\":\"3\",\"n\":3000000000}\n";
  REQUIRE(store != NULL);
  table = pk_create_table(store, "Bulk", NULL);
  REQUIRE(table != NULL);
  partkv_bulk_writer_options_set_threads(options, 2);
  if (validate_first) {
    partkv_bulk_writer_options_set_validate_before_writing(options, 1, pk_dir(), strlen(pk_dir()));
  }
  REQUIRE_OK(partkv_bulk_writer_create(table, options, &writer));
  REQUIRE_OK(partkv_bulk_writer_add_json_lines(writer, kFirst, strlen(kFirst)));
  REQUIRE_OK(partkv_bulk_writer_add_json_lines(writer, kSecond, strlen(kSecond)));
  s = partkv_bulk_writer_finish(writer);
  CHECK_INT(partkv_status_code(s), PARTKV_INVALID_ARGUMENT);
  message = partkv_status_message(s, &length);
  CHECK(strncmp(message, "line 5: property 'n': ", 22) == 0 ||
        (pk_fail_text(__FILE__, __LINE__, "line 5", message, length, "line 5: property 'n': "), 0));
  partkv_bulk_writer_report(writer, &report);
  CHECK_INT(report.has_bad_row, 1);
  CHECK_INT(report.bad_row, 2); /* blank lines are not rows */
  CHECK_INT(report.bad_line, 5);
  CHECK_INT(report.lines_added, 5);
  CHECK_INT(report.rows_written, 0); /* rows 0 and 1 waited in the bad row's group */
  CHECK_INT(report.resume_line, 1);
  CHECK_INT(count_rows(table), 0);

  /* error(): an owned copy of why the writer stopped. */
  copy = partkv_bulk_writer_error(writer);
  REQUIRE(copy != NULL);
  CHECK(copy != s);
  CHECK_INT(partkv_status_code(copy), PARTKV_INVALID_ARGUMENT);
  copy_message = partkv_status_message(copy, &copy_length);
  CHECK_TEXT(copy_message, copy_length, message);
  partkv_status_destroy(s);
  /* Every later call returns the same error. */
  e = pk_entity("q", "r");
  s = partkv_bulk_writer_add(writer, e);
  CHECK_INT(partkv_status_code(s), PARTKV_INVALID_ARGUMENT);
  message = partkv_status_message(s, &length);
  CHECK_TEXT(message, length, copy_message);
  partkv_status_destroy(s);
  CHECK_CODE(partkv_bulk_writer_flush(writer), PARTKV_INVALID_ARGUMENT, "line 5: ");
  partkv_status_destroy(copy);
  partkv_entity_destroy(e);
  partkv_bulk_writer_destroy(writer);

  /* A bad row given by add is named by its position. */
  writer = NULL;
  REQUIRE_OK(partkv_bulk_writer_create(table, options, &writer));
  e = pk_entity("p", "1");
  REQUIRE_OK(partkv_bulk_writer_add(writer, e));
  partkv_entity_set_partition_key(e, "a/b", 3);
  CHECK_CODE(partkv_bulk_writer_add(writer, e), PARTKV_INVALID_ARGUMENT,
             "row 1: PartitionKey 'a/b' contains the forbidden character '/'");
  partkv_bulk_writer_report(writer, &report);
  CHECK_INT(report.has_bad_row, 1);
  CHECK_INT(report.bad_row, 1);
  CHECK_INT(report.bad_line, 0);
  CHECK_INT(report.rows_added, 1);
  copy = partkv_bulk_writer_error(writer);
  CHECK(copy != NULL && pk_text_has(partkv_status_message(copy, &length), length, "row 1: "));
  partkv_status_destroy(copy);
  partkv_entity_destroy(e);
  partkv_bulk_writer_destroy(writer);
  partkv_bulk_writer_options_destroy(options);
  partkv_table_close(table);
  partkv_store_close(store);
}

void test_BulkWriterBadLine(void) { bad_line(0); }

void test_BulkWriterBadLineValidatingFirst(void) { bad_line(1); }

void test_BulkWriterConflict(void) {
  /* An existing row fails its batch; the batches before it are written (bulk_writer_test.cc
   * AnExistingRowFailsItsBatchAndTheBatchesBeforeItAreWritten). */
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_t* table;
  partkv_bulk_writer_t* writer = NULL;
  partkv_bulk_report_t report;
  partkv_entity_t* e;
  char rk[16];
  int i;
  REQUIRE(store != NULL);
  table = pk_create_table(store, "Bulk", NULL);
  REQUIRE(table != NULL);
  e = pk_entity("q", "000049");
  partkv_entity_set_int32(e, "n", 1, -1);
  REQUIRE_OK(partkv_table_insert(table, e, NULL));
  partkv_entity_destroy(e);

  REQUIRE_OK(partkv_bulk_writer_create(table, NULL, &writer));
  e = partkv_entity_create();
  for (i = 0; i < 200; ++i) {
    partkv_entity_set_partition_key(e, i < 100 ? "p" : "q", 1);
    pk_row_key(rk, i % 100);
    partkv_entity_set_row_key(e, rk, strlen(rk));
    partkv_entity_set_int32(e, "n", 1, i);
    REQUIRE_OK(partkv_bulk_writer_add(writer, e));
  }
  partkv_entity_destroy(e);
  CHECK_CODE(partkv_bulk_writer_finish(writer), PARTKV_ALREADY_EXISTS,
             "row 149: entity (PartitionKey 'q', RowKey '000049') already exists");
  partkv_bulk_writer_report(writer, &report);
  CHECK_INT(report.has_bad_row, 1);
  CHECK_INT(report.bad_row, 149);
  CHECK_INT(report.rows_written, 100);
  CHECK_INT(report.batches_written, 1);
  CHECK_INT(count_rows(table), 101); /* p's 100 and the row that was there */
  CHECK_CODE(partkv_bulk_writer_error(writer), PARTKV_ALREADY_EXISTS, "row 149: ");
  partkv_bulk_writer_destroy(writer);
  partkv_table_close(table);
  partkv_store_close(store);
}

void test_BulkWriterValidateFirst(void) {
  /* Rows in any key order, validated, then written in key order by finish. */
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_t* table;
  partkv_bulk_writer_options_t* options = partkv_bulk_writer_options_create();
  partkv_bulk_writer_t* writer = NULL;
  partkv_bulk_report_t report;
  partkv_entity_t* e = partkv_entity_create();
  char pk[32], rk[16];
  int i;
  REQUIRE(store != NULL);
  table = pk_create_table(store, "Bulk", NULL);
  REQUIRE(table != NULL);
  partkv_bulk_writer_options_set_validate_before_writing(options, 1, pk_dir(), strlen(pk_dir()));
  partkv_bulk_writer_options_set_sync(options, 1);
  REQUIRE_OK(partkv_bulk_writer_create(table, options, &writer));
  for (i = 0; i < 300; ++i) {
    snprintf(pk, sizeof pk, "k%d", i % 7); /* interleaved PartitionKeys */
    pk_row_key(rk, i);
    partkv_entity_set_partition_key(e, pk, strlen(pk));
    partkv_entity_set_row_key(e, rk, strlen(rk));
    partkv_entity_set_int32(e, "n", 1, i);
    REQUIRE_OK(partkv_bulk_writer_add(writer, e));
  }
  /* flush validates; nothing is written before finish. */
  REQUIRE_OK(partkv_bulk_writer_flush(writer));
  CHECK_INT(count_rows(table), 0);
  REQUIRE_OK(partkv_bulk_writer_finish(writer));
  partkv_bulk_writer_report(writer, &report);
  CHECK_INT(report.rows_written, 300);
  CHECK_INT(report.has_bad_row, 0);
  CHECK_INT(count_rows(table), 300);
  partkv_entity_destroy(e);
  partkv_bulk_writer_destroy(writer);
  partkv_bulk_writer_options_destroy(options);
  partkv_table_close(table);
  partkv_store_close(store);
}
