/* "Bytes and text" (partkv/c.h): every key, name, value, filter, token and JSON text is a pointer
 * and a length, need not be NUL-terminated, and is copied before the call returns. Here each is
 * handed over in a heap block of exactly its length, without a NUL, and the block is freed (and
 * its bytes overwritten first) as soon as the call returns: a read past the length, or of the
 * text after the call, is an invalid read under Valgrind (c_api.Valgrind) and AddressSanitizer,
 * and changes the results checked here otherwise. */

#include <stdlib.h>

#include "harness.h"

/* `text` in a heap block of exactly strlen(text) bytes, no NUL. */
static char* exact(const char* text) {
  size_t n = strlen(text);
  char* block = (char*)malloc(n == 0 ? 1 : n);
  if (block != NULL) memcpy(block, text, n);
  return block;
}

/* Overwrites and frees a block from exact(). */
static void drop(char* block, const char* text) {
  memset(block, '#', strlen(text) == 0 ? 1 : strlen(text));
  free(block);
}

/* Calls `call` with (X, strlen(T)) for a block X of text T, then drops X. */
#define WITH(X, T, call)           \
  do {                             \
    char* X = exact(T);            \
    size_t X##_length = strlen(T); \
    (void)X##_length;              \
    call;                          \
    drop(X, T);                    \
  } while (0)

/* Values: the DateTime and the Guid parsed here are `ticks` and `guid`. */
static void unterminated_values(int64_t* ticks, uint8_t guid[16]) {
  char* text;
  int remote = -1;
  WITH(t, "2024-01-02T03:04:05Z", CHECK_OK(partkv_datetime_parse(t, t_length, ticks)));
  CHECK_INT(*ticks, PARTKV_UNIX_EPOCH_TICKS + (19724LL * 86400 + 11045) * 10000000LL);
  WITH(t, "c9da6455-213d-42c9-9a79-3e9149a57833", CHECK_OK(partkv_guid_parse(t, t_length, guid)));
  CHECK_INT(guid[0], 0xc9);
  WITH(t, "AccountName=a;AccountKey=x", remote = partkv_is_remote_location(t, t_length));
  CHECK_INT(remote, 1);
  WITH(t, "AccountName=a;AccountKey=c2VjcmV0", text = partkv_redact_location(t, t_length, NULL));
  CHECK_STR(text, "AccountName=a;AccountKey=<redacted>");
  partkv_free(text);
}

/* Entities: keys, names and values. */
static void unterminated_entity(partkv_entity_t* e, int64_t ticks, const uint8_t guid[16],
                                const partkv_filter_t* filter) {
  partkv_entity_t* got = NULL;
  size_t length = 0, index = 0;
  WITH(t, "pk", partkv_entity_set_partition_key(e, t, t_length));
  WITH(t, "rk", partkv_entity_set_row_key(e, t, t_length));
  WITH(n, "tag", WITH(v, "x", partkv_entity_set_string(e, n, n_length, v, v_length)));
  WITH(n, "bin", WITH(v, "\x01\x02", partkv_entity_set_binary(e, n, n_length, v, v_length)));
  WITH(n, "flag", partkv_entity_set_bool(e, n, n_length, 1));
  WITH(n, "when", partkv_entity_set_datetime(e, n, n_length, ticks));
  WITH(n, "dbl", partkv_entity_set_double(e, n, n_length, 0.5));
  WITH(n, "guid", partkv_entity_set_guid(e, n, n_length, guid));
  WITH(n, "n", partkv_entity_set_int32(e, n, n_length, 7));
  WITH(n, "big", partkv_entity_set_int64(e, n, n_length, 1LL << 40));
  WITH(n, "day", WITH(v, "d1", partkv_entity_set_string(e, n, n_length, v, v_length)));
  WITH(n, "id", WITH(v, "i1", partkv_entity_set_string(e, n, n_length, v, v_length)));
  WITH(t, "W/\"x\"", partkv_entity_set_etag(e, t, t_length));
  CHECK_INT(partkv_entity_property_count(e), 10);
  WITH(n, "tag", CHECK(partkv_entity_find(e, n, n_length, &index)));
  CHECK_TEXT(partkv_entity_property_string(e, index, &length), length, "x");
  CHECK_INT(partkv_filter_matches(filter, e), 1);
  WITH(n, "dbl", CHECK_INT(partkv_entity_remove(e, n, n_length), 1));
  WITH(t, "{\"PartitionKey\":\"j\",\"RowKey\":\"k\",\"n\":3}",
       CHECK_OK(partkv_entity_from_json(t, t_length, 1, &got)));
  CHECK_INT(pk_int32(got, "n", 0), 3);
  partkv_entity_destroy(got);
  got = NULL;
}

/* A store, a table and its options: the store and the table opened are `store` and `table`. */
static void unterminated_store_and_table(partkv_store_options_t* store_options,
                                         partkv_table_options_t* table_options,
                                         const partkv_key_strategy_t* strategy,
                                         partkv_store_t** store, partkv_table_t** table) {
  char path[PK_PATH_MAX];
  size_t length = 0;
  pk_path(path, "store");
  WITH(t, "azure-table", partkv_store_options_set_profile(store_options, t, t_length));
  WITH(t, "/nonexistent.pem", partkv_store_options_set_remote_ca_file(store_options, t, t_length));
  WITH(t, path, CHECK_OK(partkv_store_open(t, t_length, store_options, store)));
  REQUIRE(*store != NULL);
  CHECK_TEXT(partkv_store_path(*store, &length), length, path);
  WITH(t, "census", CHECK_INT(partkv_store_has_capability(*store, t, t_length), 1));
  WITH(t, "<x/>", CHECK_OK(partkv_store_set_service_properties(*store, t, t_length)));
  partkv_table_options_set_partition_key_scheme(table_options, strategy);
  WITH(t, "none", partkv_table_options_set_profile(table_options, t, t_length));
  WITH(t, "Bytes", CHECK_OK(partkv_store_create_table(*store, t, t_length, table_options)));
  WITH(t, "Dropped", CHECK_OK(partkv_store_create_table(*store, t, t_length, NULL)));
  WITH(t, "Dropped", CHECK_OK(partkv_store_drop_table(*store, t, t_length)));
  WITH(t, "bytes", CHECK_OK(partkv_store_open_table(*store, t, t_length, strategy, NULL, table)));
  REQUIRE(*table != NULL);
}

/* Writes and reads. */
static void unterminated_writes(partkv_table_t* table, partkv_entity_t* e) {
  partkv_entity_t* got = NULL;
  char* etag;
  size_t length = 0;
  CHECK_OK(partkv_table_insert(table, e, NULL));
  etag = exact(partkv_entity_etag(e, NULL));
  length = strlen(partkv_entity_etag(e, NULL));
  CHECK_OK(partkv_table_replace(table, e, etag, length, NULL));
  memset(etag, '#', length);
  free(etag);
  etag = exact(partkv_entity_etag(e, NULL));
  length = strlen(partkv_entity_etag(e, NULL));
  CHECK_OK(partkv_table_merge(table, e, etag, length, NULL));
  free(etag);
  WITH(p, "pk", WITH(r, "rk", CHECK_OK(partkv_table_get(table, p, p_length, r, r_length, &got))));
  CHECK_INT(pk_int32(got, "n", 0), 7);
  partkv_entity_destroy(got);
  WITH(p, "pk",
       CHECK_INT(partkv_table_physical_partition_of(table, p, p_length),
                 partkv_table_physical_partition_of(table, "pk", 2)));
  WITH(
      p, "pk",
      WITH(r, "rk", CHECK_OK(partkv_table_delete(table, p, p_length, r, r_length, NULL, 0, NULL))));
}

/* A batch. */
static void unterminated_batch(partkv_table_t* table, partkv_batch_t* batch, partkv_entity_t* e) {
  char* etag;
  size_t length = 0;
  partkv_batch_add(batch, PARTKV_OP_INSERT, e, NULL, 0);
  partkv_entity_set_row_key(e, "rk2", 3);
  partkv_batch_add(batch, PARTKV_OP_INSERT, e, NULL, 0);
  CHECK_OK(partkv_table_submit(table, batch, NULL));
  etag = exact(partkv_batch_etag(batch, 1, NULL));
  length = strlen(partkv_batch_etag(batch, 1, NULL));
  partkv_batch_clear(batch);
  WITH(p, "pk",
       WITH(r, "rk2", partkv_batch_add_delete(batch, p, p_length, r, r_length, etag, length)));
  free(etag);
  partkv_entity_set_row_key(e, "rk3", 3);
  WITH(m, "*", partkv_batch_add(batch, PARTKV_OP_INSERT_OR_MERGE, e, m, m_length));
  CHECK_OK(partkv_table_submit(table, batch, NULL));
  CHECK_INT(partkv_batch_size(batch), 2);
}

/* Queries: conditions, filter, select, token. */
static void unterminated_queries(partkv_table_t* table, partkv_query_t* query, partkv_page_t* page,
                                 partkv_entity_t* e) {
  char* token;
  size_t length = 0;
  WITH(t, "pk", partkv_query_set_partition_key(query, t, t_length));
  WITH(l, "pa",
       WITH(u, "pz", partkv_query_set_partition_range(query, l, l_length, 1, u, u_length, 1)));
  WITH(l, "rk", WITH(u, "rk9", partkv_query_set_row_range(query, l, l_length, 1, u, u_length, 1)));
  WITH(t, "rk", partkv_query_set_row_prefix(query, t, t_length));
  WITH(t, "n eq 7", partkv_query_set_filter(query, t, t_length));
  WITH(t, "tag", partkv_query_add_select(query, t, t_length));
  partkv_query_set_page_size(query, 1);
  CHECK_OK(partkv_table_query(table, query, page));
  CHECK_INT(partkv_page_count(page), 1);
  CHECK_INT(partkv_entity_property_count(partkv_page_entity(page, 0)), 1);
  token = exact(partkv_page_continuation(page, &length));
  REQUIRE(length > 0);
  partkv_query_set_continuation(query, token, length);
  free(token);
  CHECK_OK(partkv_table_query(table, query, page));
  CHECK_TEXT(partkv_entity_row_key(partkv_page_entity(page, 0), &length), length, "rk3");
  partkv_query_set_continuation(query, NULL, 0);
  partkv_query_set_partition_range(query, NULL, 0, 1, NULL, 0, 1);
  partkv_query_set_row_range(query, NULL, 0, 1, NULL, 0, 1);
  partkv_query_set_row_prefix(query, NULL, 0);
  partkv_query_set_filter(query, NULL, 0);
  partkv_query_clear_select(query);
  partkv_query_set_page_size(query, 1000);
  /* Without a PartitionKey the table's scheme computes one, a shard of day d1. */
  partkv_entity_set_partition_key(e, NULL, 0);
  partkv_entity_set_row_key(e, "sharded", 7);
  CHECK_OK(partkv_table_insert(table, e, NULL));
  WITH(t, "d1", CHECK_OK(partkv_table_query_shards(table, NULL, t, t_length, query, page)));
  REQUIRE_INT(partkv_page_count(page), 1);
  CHECK_TEXT(partkv_entity_row_key(partkv_page_entity(page, 0), &length), length, "sharded");
}

/* Access policies. */
static void unterminated_access_policies(partkv_table_t* table,
                                         partkv_access_policies_t* policies) {
  partkv_access_policies_t* stored = NULL;
  size_t length = 0;
  WITH(i, "policy",
       WITH(p, "ra", partkv_access_policies_add(policies, i, i_length, 0, 0, 0, 0, p, p_length)));
  CHECK_OK(partkv_table_set_access_policies(table, policies));
  CHECK_OK(partkv_table_access_policies(table, &stored));
  CHECK(partkv_access_policies_get(stored, 0, &length, NULL, NULL, NULL, NULL, NULL, NULL) != NULL);
  CHECK_INT(length, 6);
  partkv_access_policies_destroy(stored);
}

/* The bulk writer. */
static void unterminated_bulk_writer(partkv_table_t* table,
                                     partkv_bulk_writer_options_t* bulk_options) {
  partkv_bulk_writer_t* writer = NULL;
  WITH(t, pk_dir(),
       partkv_bulk_writer_options_set_validate_before_writing(bulk_options, 1, t, t_length));
  CHECK_OK(partkv_bulk_writer_create(table, bulk_options, &writer));
  WITH(t, "{\"PartitionKey\":\"b\",\"RowKey\":\"1\"}\n{\"PartitionKey\":\"b\",\"RowKey\":\"2\"}",
       CHECK_OK(partkv_bulk_writer_add_json_lines(writer, t, t_length)));
  CHECK_OK(partkv_bulk_writer_finish(writer));
  {
    partkv_bulk_report_t report;
    partkv_bulk_writer_report(writer, &report);
    CHECK_INT(report.rows_written, 2);
  }
  partkv_bulk_writer_destroy(writer);
}

void test_UnterminatedText(void) {
  partkv_store_options_t* store_options = partkv_store_options_create();
  partkv_table_options_t* table_options = partkv_table_options_create();
  partkv_store_t* store = NULL;
  partkv_table_t* table = NULL;
  partkv_key_strategy_t* strategy = NULL;
  partkv_filter_t* filter = NULL;
  partkv_entity_t* e = partkv_entity_create();
  partkv_batch_t* batch = partkv_batch_create();
  partkv_query_t* query = partkv_query_create();
  partkv_page_t* page = partkv_page_create();
  partkv_access_policies_t* policies = partkv_access_policies_create();
  partkv_bulk_writer_options_t* bulk_options = partkv_bulk_writer_options_create();
  int64_t ticks = 0;
  uint8_t guid[16];

  unterminated_values(&ticks, guid);
  /* Strategies and filters. */
  WITH(t, "hash-suffix(day,id,4)", CHECK_OK(partkv_key_strategy_parse(t, t_length, &strategy)));
  WITH(t, "n ge 5 and tag eq 'x'", CHECK_OK(partkv_filter_parse(t, t_length, &filter)));
  unterminated_entity(e, ticks, guid, filter);
  STEP(unterminated_store_and_table(store_options, table_options, strategy, &store, &table));
  unterminated_writes(table, e);
  unterminated_batch(table, batch, e);
  STEP(unterminated_queries(table, query, page, e));
  unterminated_access_policies(table, policies);
  unterminated_bulk_writer(table, bulk_options);

  partkv_bulk_writer_options_destroy(bulk_options);
  partkv_access_policies_destroy(policies);
  partkv_page_destroy(page);
  partkv_query_destroy(query);
  partkv_batch_destroy(batch);
  partkv_entity_destroy(e);
  partkv_filter_destroy(filter);
  partkv_key_strategy_destroy(strategy);
  partkv_table_options_destroy(table_options);
  partkv_store_options_destroy(store_options);
  partkv_table_close(table);
  partkv_store_close(store);
}
