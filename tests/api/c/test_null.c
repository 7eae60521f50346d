/* NULL handles (partkv/c.h "Errors", "Handles"): a function that returns a status gives
 * PARTKV_INVALID_ARGUMENT for a NULL handle or out parameter it needs; _destroy and _close of NULL
 * do nothing; no function crashes on NULL (accessors answer 0, NULL or ""). The other tests check
 * the NULL arguments of the functions they cover as well. */

#include "harness.h"

/* An accessor's text of a NULL handle: NULL or "", and its length (the variable `length`, which
 * the call is given) 0. */
#define CHECK_NO_TEXT(call)                                             \
  do {                                                                  \
    const char* pk_s_;                                                  \
    length = 99;                                                        \
    pk_s_ = (call);                                                     \
    if (!(pk_s_ == NULL || pk_s_[0] == '\0') || length != 0)            \
      pk_fail(__FILE__, __LINE__, #call " is NULL or empty, length 0"); \
  } while (0)
/* The same for an accessor without a length. */
#define CHECK_NO_STATIC_TEXT(call)                            \
  do {                                                        \
    const char* pk_s_ = (call);                               \
    if (!(pk_s_ == NULL || pk_s_[0] == '\0'))                 \
      pk_fail(__FILE__, __LINE__, #call " is NULL or empty"); \
  } while (0)

/* Stores. */
static void null_stores(void) {
  partkv_table_list_t* list = NULL;
  partkv_table_t* opened = NULL;
  char* text = NULL;
  size_t length = 99;
  CHECK_CODE(partkv_store_create_table(NULL, "Abc", 3, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_store_drop_table(NULL, "Things", 6), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_store_list_tables(NULL, &list), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK(list == NULL);
  CHECK_CODE(partkv_store_open_table(NULL, "Things", 6, NULL, NULL, &opened),
             PARTKV_INVALID_ARGUMENT, NULL);
  CHECK(opened == NULL);
  CHECK_CODE(partkv_store_service_properties(NULL, &text, &length), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK(text == NULL);
  CHECK_CODE(partkv_store_set_service_properties(NULL, "x", 1), PARTKV_INVALID_ARGUMENT, NULL);
  {
    int64_t ticks = 0;
    CHECK_CODE(partkv_store_service_stats(NULL, &text, &length, &ticks), PARTKV_INVALID_ARGUMENT,
               NULL);
    CHECK(text == NULL);
  }
  CHECK_CODE(partkv_store_flush(NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_store_await_background_work(NULL, 0), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_store_await_writable(NULL, 0), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_NO_TEXT(partkv_store_path(NULL, &length));
  CHECK_NO_STATIC_TEXT(partkv_store_backend(NULL));
  CHECK_INT(partkv_store_has_capability(NULL, "census", 6), 0);
  CHECK_INT(partkv_table_list_count(NULL), 0);
  CHECK(partkv_table_list_get(NULL, 0) == NULL);
}

/* Table facts. */
static void null_table_facts(void) {
  size_t length = 99;
  CHECK_NO_TEXT(partkv_table_info_name(NULL, &length));
  CHECK_INT(partkv_table_info_physical_partitions(NULL), 0);
  CHECK_INT(partkv_table_info_created(NULL), 0);
  CHECK_NO_TEXT(partkv_table_info_partition_key_scheme(NULL, &length));
  CHECK_NO_TEXT(partkv_table_info_row_key_scheme(NULL, &length));
  CHECK_NO_TEXT(partkv_table_info_profile(NULL, &length));
  CHECK_INT(partkv_table_info_throttling(NULL), 0);
  CHECK(partkv_table_info(NULL) == NULL);
  CHECK_NO_TEXT(partkv_table_name(NULL, &length));
}

/* Writes and reads: a NULL table, entity or out parameter. */
static void null_writes_and_reads(partkv_table_t* table, partkv_entity_t* e) {
  partkv_entity_t* out = NULL;
  CHECK_CODE(partkv_table_insert(NULL, e, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_insert(table, NULL, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_replace(NULL, e, NULL, 0, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_replace(table, NULL, NULL, 0, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_merge(NULL, e, NULL, 0, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_merge(table, NULL, NULL, 0, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_insert_or_replace(NULL, e, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_insert_or_replace(table, NULL, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_insert_or_merge(NULL, e, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_insert_or_merge(table, NULL, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_delete(NULL, "p", 1, "r", 1, NULL, 0, NULL), PARTKV_INVALID_ARGUMENT,
             NULL);
  CHECK_CODE(partkv_table_get(NULL, "p", 1, "r", 1, &out), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_get(table, "p", 1, "r", 1, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_get_by_attributes(NULL, e, &out), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_get_by_attributes(table, NULL, &out), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_get_by_attributes(table, e, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_compute_keys(NULL, e, PARTKV_OP_INSERT, &out), PARTKV_INVALID_ARGUMENT,
             NULL);
  CHECK_CODE(partkv_table_compute_keys(table, NULL, PARTKV_OP_INSERT, &out),
             PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_compute_keys(table, e, PARTKV_OP_INSERT, NULL), PARTKV_INVALID_ARGUMENT,
             NULL);
  CHECK(out == NULL);
  CHECK_INT(partkv_table_physical_partition_of(NULL, "p", 1), 0);
  /* Nothing was written by any of them. */
  CHECK_CODE(partkv_table_get(table, "p", 1, "r", 1, &out), PARTKV_NOT_FOUND, NULL);
}

/* Batches. */
static void null_batches(partkv_table_t* table, partkv_batch_t* batch, partkv_entity_t* e) {
  size_t length = 99;
  partkv_batch_add(batch, PARTKV_OP_INSERT, e, NULL, 0);
  CHECK_CODE(partkv_table_submit(NULL, batch, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_submit(table, NULL, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_batch_add(NULL, PARTKV_OP_INSERT, e, NULL, 0);
  partkv_batch_add(batch, PARTKV_OP_INSERT, NULL, NULL, 0); /* no entity: nothing recorded */
  partkv_batch_add_delete(NULL, "p", 1, "r", 1, NULL, 0);
  partkv_batch_clear(NULL);
  CHECK_INT(partkv_batch_size(batch), 1);
  CHECK_INT(partkv_batch_size(NULL), 0);
  CHECK_NO_TEXT(partkv_batch_etag(NULL, 0, &length));
  CHECK_INT(partkv_batch_timestamp(NULL, 0), 0);
}

/* Queries and pages. */
static void null_queries_and_pages(void) {
  char* text = NULL;
  size_t length = 99;
  partkv_query_set_partition_key(NULL, "p", 1);
  partkv_query_set_partition_range(NULL, "a", 1, 1, "b", 1, 1);
  partkv_query_set_row_range(NULL, "a", 1, 1, "b", 1, 1);
  partkv_query_set_row_prefix(NULL, "a", 1);
  partkv_query_set_filter(NULL, "a eq 1", 6);
  partkv_query_add_select(NULL, "a", 1);
  partkv_query_clear_select(NULL);
  partkv_query_set_page_size(NULL, 5);
  partkv_query_set_descending(NULL, 1);
  partkv_query_set_continuation(NULL, "x", 1);
  partkv_query_set_scan_budget(NULL, 1);
  partkv_query_set_scan_time_budget_ms(NULL, 1);
  partkv_query_set_page_bytes(NULL, 1);
  CHECK_INT(partkv_page_count(NULL), 0);
  CHECK(partkv_page_entity(NULL, 0) == NULL);
  CHECK_NO_TEXT(partkv_page_continuation(NULL, &length));
  CHECK_INT(partkv_page_examined(NULL), 0);
  text = partkv_page_to_json(NULL, PARTKV_JSON_MINIMAL_METADATA, &length);
  CHECK(text == NULL || strcmp(text, "") == 0 || strcmp(text, "[]") == 0);
  partkv_free(text);
}

/* Statistics and census. */
static void null_statistics_and_census(void) {
  partkv_partition_stats_t stats;
  partkv_partition_census_t census;
  size_t length = 99;
  uint32_t physical = 0;
  uint64_t a = 0, b = 0;
  CHECK(partkv_table_statistics(NULL, 5) == NULL);
  memset(&stats, 0, sizeof stats);
  partkv_table_stats_total(NULL, &stats);
  CHECK_INT(partkv_table_stats_partition_count(NULL), 0);
  CHECK_INT(partkv_table_stats_partition(NULL, 0, &stats), 0);
  CHECK_INT(partkv_table_stats_hot_count(NULL), 0);
  CHECK(partkv_table_stats_hot(NULL, 0, &length, &a, &b) == NULL);
  memset(&census, 0, sizeof census);
  partkv_table_census_total(NULL, &census);
  CHECK_INT(partkv_table_census_partition_count(NULL), 0);
  CHECK_INT(partkv_table_census_partition(NULL, 0, &census), 0);
  CHECK_INT(partkv_table_census_largest_count(NULL), 0);
  CHECK(partkv_table_census_largest(NULL, 0, &length, &physical, &a, &b) == NULL);
}

/* Access policies. */
static void null_access_policies(void) {
  size_t length = 99;
  int has_start = 0, has_expiry = 0;
  int64_t start = 0, expiry = 0;
  const char* permission = NULL;
  partkv_access_policies_add(NULL, "id", 2, 0, 0, 0, 0, "r", 1);
  CHECK_INT(partkv_access_policies_count(NULL), 0);
  CHECK(partkv_access_policies_get(NULL, 0, &length, &has_start, &start, &has_expiry, &expiry,
                                   &permission, &length) == NULL);
}

/* Bulk writers. */
static void null_bulk_writers(partkv_table_t* table, partkv_entity_t* e) {
  partkv_bulk_writer_t* writer = NULL;
  partkv_bulk_report_t report;
  CHECK_CODE(partkv_bulk_writer_add(NULL, e), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_bulk_writer_add_json_lines(NULL, "{}", 2), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_bulk_writer_flush(NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_bulk_writer_finish(NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_bulk_writer_error(NULL), PARTKV_INVALID_ARGUMENT, NULL);
  memset(&report, 0, sizeof report);
  partkv_bulk_writer_report(NULL, &report);
  REQUIRE_OK(partkv_bulk_writer_create(table, NULL, &writer));
  CHECK_CODE(partkv_bulk_writer_add(writer, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_OK(partkv_bulk_writer_finish(writer));
  partkv_bulk_writer_destroy(writer);
}

/* Entities, strategies, filters: accessors of NULL. */
static void null_entity_accessors(partkv_entity_t* e) {
  char* text = NULL;
  size_t length = 99;
  CHECK_NO_TEXT(partkv_entity_partition_key(NULL, &length));
  CHECK_NO_TEXT(partkv_entity_row_key(NULL, &length));
  CHECK_NO_TEXT(partkv_entity_etag(NULL, &length));
  CHECK_INT(partkv_entity_timestamp(NULL), 0);
  CHECK_INT(partkv_entity_property_count(NULL), 0);
  CHECK_INT(partkv_entity_find(NULL, "a", 1, &length), 0);
  CHECK_INT(partkv_entity_remove(NULL, "a", 1), 0);
  partkv_entity_clear_properties(NULL);
  partkv_entity_set_partition_key(NULL, "p", 1);
  partkv_entity_set_row_key(NULL, "r", 1);
  partkv_entity_set_etag(NULL, "e", 1);
  partkv_entity_set_timestamp(NULL, 1);
  partkv_entity_set_string(NULL, "a", 1, "b", 1);
  partkv_entity_set_binary(NULL, "a", 1, "b", 1);
  partkv_entity_set_bool(NULL, "a", 1, 1);
  partkv_entity_set_datetime(NULL, "a", 1, 1);
  partkv_entity_set_double(NULL, "a", 1, 1.0);
  partkv_entity_set_guid(NULL, "a", 1, (const uint8_t*)"0123456789abcdef");
  partkv_entity_set_guid(e, "g", 1, NULL); /* no bytes: nothing set */
  CHECK_INT(partkv_entity_find(e, "g", 1, NULL), 0);
  partkv_entity_set_int32(NULL, "a", 1, 1);
  partkv_entity_set_int64(NULL, "a", 1, 1);
  CHECK(partkv_entity_property_name(NULL, 0, &length) == NULL);
  CHECK_INT(partkv_entity_property_type(NULL, 0), 0);
  CHECK(partkv_entity_property_string(NULL, 0, &length) == NULL);
  CHECK(partkv_entity_property_binary(NULL, 0, &length) == NULL);
  CHECK_INT(partkv_entity_property_bool(NULL, 0), 0);
  CHECK_INT(partkv_entity_property_datetime(NULL, 0), 0);
  CHECK(partkv_entity_property_double(NULL, 0) == 0.0);
  CHECK(partkv_entity_property_guid(NULL, 0) == NULL);
  CHECK_INT(partkv_entity_property_int32(NULL, 0), 0);
  CHECK_INT(partkv_entity_property_int64(NULL, 0), 0);
  text = partkv_entity_to_json(NULL, PARTKV_JSON_MINIMAL_METADATA, 1, &length);
  CHECK(text == NULL || strcmp(text, "") == 0);
  partkv_free(text);
  text = partkv_key_strategy_to_string(NULL, &length);
  CHECK(text == NULL || strcmp(text, "") == 0);
  partkv_free(text);
  CHECK_INT(partkv_key_strategy_is_sharded(NULL), 0);
  CHECK(partkv_key_strategy_shard_count(NULL) <= 1);
  text = partkv_filter_canonical(NULL, &length);
  CHECK(text == NULL || strcmp(text, "") == 0);
  partkv_free(text);
  CHECK_INT(partkv_filter_matches(NULL, e), 0);
}

/* Every _destroy and _close of NULL does nothing. */
static void null_destroys(void) {
  partkv_status_destroy(NULL);
  partkv_entity_destroy(NULL);
  partkv_key_strategy_destroy(NULL);
  partkv_filter_destroy(NULL);
  partkv_store_options_destroy(NULL);
  partkv_table_options_destroy(NULL);
  partkv_write_options_destroy(NULL);
  partkv_store_close(NULL);
  partkv_table_list_destroy(NULL);
  partkv_table_info_destroy(NULL);
  partkv_table_close(NULL);
  partkv_batch_destroy(NULL);
  partkv_query_destroy(NULL);
  partkv_page_destroy(NULL);
  partkv_table_stats_destroy(NULL);
  partkv_table_census_destroy(NULL);
  partkv_access_policies_destroy(NULL);
  partkv_bulk_writer_options_destroy(NULL);
  partkv_bulk_writer_destroy(NULL);
  partkv_free(NULL);
}

void test_NullHandles(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_t* table;
  partkv_entity_t* e = pk_entity("p", "r");
  partkv_batch_t* batch = partkv_batch_create();
  REQUIRE(store != NULL);
  table = pk_create_table(store, "Things", NULL);
  REQUIRE(table != NULL);

  null_stores();
  null_table_facts();
  null_writes_and_reads(table, e);
  null_batches(table, batch, e);
  null_queries_and_pages();
  null_statistics_and_census();
  null_access_policies();
  STEP(null_bulk_writers(table, e));
  null_entity_accessors(e);
  null_destroys();

  partkv_batch_destroy(batch);
  partkv_entity_destroy(e);
  partkv_table_close(table);
  partkv_store_close(store);
}
