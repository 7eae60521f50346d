/* Queries and pages, sharded reads, statistics, the census, throttling (partkv/c.h "Queries",
 * "Statistics"; partkv/query.h, table.h, stats.h, census.h; docs/profiles.md). */

#include <stdlib.h>

#include "harness.h"

/* What a whole query returned, page after page. */
typedef struct {
  int pages;
  int total;
  int page_sizes[64];
  int had_token[64];
  char keys[3000][24]; /* "PK/RK" of each entity, in order */
} run_t;

/* Runs `query` from its first page to its last (at most 64 pages) into `run`, through one reused
 * page; with a strategy or base, as a sharded read. 1 on success. */
static int run_all(const partkv_table_t* table, partkv_query_t* query,
                   const partkv_key_strategy_t* strategy, const char* base, run_t* run) {
  partkv_page_t* page = partkv_page_create();
  size_t length = 0, i;
  int good = 1;
  memset(run, 0, sizeof *run);
  partkv_query_set_continuation(query, "", 0);
  while (good && run->pages < 64) {
    partkv_status_t* s =
        base == NULL ? partkv_table_query(table, query, page)
                     : partkv_table_query_shards(table, strategy, base, strlen(base), query, page);
    const char* token;
    if (!pk_ok(s, __FILE__, __LINE__, "query")) {
      good = 0;
      break;
    }
    run->page_sizes[run->pages] = (int)partkv_page_count(page);
    for (i = 0; i < partkv_page_count(page); ++i) {
      const partkv_entity_t* e = partkv_page_entity(page, i);
      if (run->total < 3000) {
        snprintf(run->keys[run->total], sizeof run->keys[0], "%s/%s",
                 partkv_entity_partition_key(e, NULL), partkv_entity_row_key(e, NULL));
      }
      ++run->total;
    }
    if (partkv_page_entity(page, partkv_page_count(page)) != NULL) {
      pk_fail(__FILE__, __LINE__, "page_entity out of range is NULL");
    }
    token = partkv_page_continuation(page, &length);
    run->had_token[run->pages] = length > 0;
    ++run->pages;
    if (length == 0) break;
    /* The token is borrowed until the page is next queried into: the query copies it. */
    partkv_query_set_continuation(query, token, length);
  }
  partkv_page_destroy(page);
  partkv_query_set_continuation(query, NULL, 0);
  return good;
}

void test_QueryPaging(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_t* table;
  partkv_query_t* query = partkv_query_create();
  run_t* run = (run_t*)malloc(sizeof(run_t));
  char expected[32];
  int i;
  REQUIRE(store != NULL);
  REQUIRE(run != NULL && query != NULL);
  table = pk_create_table(store, "Paging", NULL);
  REQUIRE(table != NULL);
  REQUIRE(pk_fill(table, "p", 2500));
  REQUIRE(pk_fill(table, "o", 10));
  REQUIRE(pk_fill(table, "q", 10));

  /* One PartitionKey of 2,500 rows: pages of 1000, 1000 and 500, tokens on the first two. */
  partkv_query_set_partition_key(query, "pXYZ", 1);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  REQUIRE_INT(run->pages, 3);
  CHECK_INT(run->page_sizes[0], 1000);
  CHECK_INT(run->page_sizes[1], 1000);
  CHECK_INT(run->page_sizes[2], 500);
  CHECK(run->had_token[0] && run->had_token[1] && !run->had_token[2]);
  REQUIRE_INT(run->total, 2500);
  for (i = 0; i < 2500; ++i) {
    snprintf(expected, sizeof expected, "p/%06d", i);
    if (strcmp(run->keys[i], expected) != 0) {
      pk_fail_text(__FILE__, __LINE__, "key order", run->keys[i], strlen(run->keys[i]), expected);
      break;
    }
  }

  /* The whole table, in (PartitionKey, RowKey) order across the 16 physical partitions. */
  partkv_query_set_partition_range(query, NULL, 0, 1, NULL, 0, 1);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 2520);
  CHECK_INT(run->pages, 3);
  CHECK_STR(run->keys[0], "o/000000");
  CHECK_STR(run->keys[10], "p/000000");
  if (run->total == 2520) CHECK_STR(run->keys[2519], "q/000009");

  /* A page reads what its token says; the examined count covers what it returned. */
  {
    partkv_page_t* page = partkv_page_create();
    size_t length = 0;
    const char* token;
    char* saved;
    partkv_query_set_partition_key(query, "p", 1);
    partkv_query_set_page_size(query, 10);
    REQUIRE_OK(partkv_table_query(table, query, page));
    CHECK_INT(partkv_page_count(page), 10);
    CHECK(partkv_page_examined(page) >= 10);
    token = partkv_page_continuation(page, &length);
    REQUIRE(length > 0);
    CHECK_INT(token[length], '\0');
    saved = (char*)malloc(length + 1);
    memcpy(saved, token, length + 1);
    partkv_query_set_continuation(query, saved, length);
    REQUIRE_OK(partkv_table_query(table, query, page));
    CHECK_TEXT(partkv_entity_row_key(partkv_page_entity(page, 0), &length), length, "000010");
    /* The same token again reads the same page. */
    REQUIRE_OK(partkv_table_query(table, query, page));
    CHECK_TEXT(partkv_entity_row_key(partkv_page_entity(page, 0), &length), length, "000010");
    /* "" starts over. */
    partkv_query_set_continuation(query, "", 0);
    REQUIRE_OK(partkv_table_query(table, query, page));
    CHECK_TEXT(partkv_entity_row_key(partkv_page_entity(page, 0), &length), length, "000000");
    free(saved);
    partkv_page_destroy(page);
  }
  partkv_query_destroy(query);
  partkv_query_destroy(NULL);
  partkv_page_destroy(NULL);
  free(run);
  partkv_table_close(table);
  partkv_store_close(store);
}

/* Rows PK/000000 .. PK/(n-1) of partitions a, b, c, d, each with n (Int32 i) and tag (String). */
static int fill_abcd(partkv_table_t* table, int n) {
  static const char* const pks[4] = {"a", "b", "c", "d"};
  partkv_batch_t* batch = partkv_batch_create();
  partkv_entity_t* e = partkv_entity_create();
  char rk[16];
  int p, i, good = 1;
  for (p = 0; p < 4 && good; ++p) {
    partkv_entity_set_partition_key(e, pks[p], 1);
    for (i = 0; i < n; ++i) {
      pk_row_key(rk, i);
      partkv_entity_set_row_key(e, rk, strlen(rk));
      partkv_entity_set_int32(e, "n", 1, i);
      partkv_entity_set_string(e, "tag", 3, pks[p], 1);
      partkv_batch_add(batch, PARTKV_OP_INSERT, e, NULL, 0);
    }
    good = pk_ok(partkv_table_submit(table, batch, NULL), __FILE__, __LINE__, "fill_abcd");
    partkv_batch_clear(batch);
  }
  partkv_entity_destroy(e);
  partkv_batch_destroy(batch);
  return good;
}

/* PartitionKey ranges: inclusive, exclusive and open bounds. */
static void conditions_partition_ranges(partkv_table_t* table, run_t* run) {
  partkv_query_t* query;
  query = partkv_query_create();
  partkv_query_set_partition_range(query, "b", 1, 1, "d", 1, 0);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 40);
  CHECK_STR(run->keys[0], "b/000000");
  CHECK_STR(run->keys[39], "c/000019");
  partkv_query_set_partition_range(query, "a", 1, 0, "c", 1, 1);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 40);
  CHECK_STR(run->keys[0], "b/000000");
  partkv_query_set_partition_range(query, NULL, 0, 1, "bXYZ", 1, 1);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 40);
  CHECK_STR(run->keys[0], "a/000000");
  partkv_query_set_partition_range(query, "c", 1, 0, NULL, 0, 1);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 20);
  CHECK_STR(run->keys[0], "d/000000");
  /* A PartitionKey ends the range, and a range ends the PartitionKey. */
  partkv_query_set_partition_key(query, "c", 1);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 20);
  CHECK_STR(run->keys[0], "c/000000");
  partkv_query_set_partition_range(query, "a", 1, 1, "b", 1, 1);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 40);
  partkv_query_destroy(query);
}

/* RowKey range in every partition, a prefix, both. */
static void conditions_row_ranges(partkv_table_t* table, run_t* run) {
  partkv_query_t* query;
  query = partkv_query_create();
  partkv_query_set_row_range(query, "000005", 6, 1, "000010", 6, 0);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 20); /* 5 of each of 4 */
  CHECK_STR(run->keys[0], "a/000005");
  CHECK_STR(run->keys[4], "a/000009");
  CHECK_STR(run->keys[5], "b/000005");
  partkv_query_set_row_range(query, NULL, 0, 1, NULL, 0, 1);
  partkv_query_set_row_prefix(query, "00001", 5);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 40);
  CHECK_STR(run->keys[0], "a/000010");
  partkv_query_set_row_range(query, "000015", 6, 0, NULL, 0, 1);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 16); /* 000016..000019 of each */
  CHECK_STR(run->keys[0], "a/000016");
  partkv_query_set_row_range(query, NULL, 0, 1, NULL, 0, 1);
  partkv_query_set_row_prefix(query, NULL, 0);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 80);
  partkv_query_destroy(query);
}

/* Filter, with key conditions inside it. */
static void conditions_filter(partkv_table_t* table, run_t* run) {
  partkv_query_t* query;
  query = partkv_query_create();
  partkv_query_set_partition_key(query, "b", 1);
  partkv_query_set_filter(query, "n ge 15", 7);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 5);
  CHECK_STR(run->keys[0], "b/000015");
  partkv_query_set_partition_range(query, NULL, 0, 1, NULL, 0, 1);
  {
    const char* filter = "PartitionKey eq 'c' and n lt 3 and tag eq 'c'";
    partkv_query_set_filter(query, filter, strlen(filter));
  }
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 3);
  CHECK_STR(run->keys[2], "c/000002");
  partkv_query_set_filter(query, "", 0);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 80);
  partkv_query_destroy(query);
}

/* Select: only the named properties (the keys, Timestamp and ETag always). */
static void conditions_select(partkv_table_t* table, partkv_query_t* query, partkv_page_t* page) {
  const partkv_entity_t* e;
  size_t length = 0, index = 0;
  partkv_query_set_partition_key(query, "a", 1);
  partkv_query_set_page_size(query, 1);
  partkv_query_add_select(query, "tag", 3);
  partkv_query_add_select(query, "missing", 7);
  REQUIRE_OK(partkv_table_query(table, query, page));
  REQUIRE_INT(partkv_page_count(page), 1);
  e = partkv_page_entity(page, 0);
  REQUIRE(e != NULL);
  CHECK_INT(partkv_entity_property_count(e), 1);
  CHECK(partkv_entity_find(e, "tag", 3, &index));
  CHECK(partkv_entity_etag(e, &length) != NULL && length > 0);
  CHECK(partkv_entity_timestamp(e) > 0);
  partkv_query_clear_select(query);
  REQUIRE_OK(partkv_table_query(table, query, page));
  CHECK_INT(partkv_entity_property_count(partkv_page_entity(page, 0)), 2);
}

/* Descending, and page sizes below 1000. */
static void conditions_descending(partkv_table_t* table, partkv_query_t* query, run_t* run) {
  partkv_query_set_descending(query, 1);
  partkv_query_set_page_size(query, 7);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 20);
  CHECK_INT(run->pages, 3);
  CHECK_INT(run->page_sizes[0], 7);
  CHECK_INT(run->page_sizes[2], 6);
  CHECK_STR(run->keys[0], "a/000019");
  CHECK_STR(run->keys[19], "a/000000");
  partkv_query_set_descending(query, 0);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_STR(run->keys[0], "a/000000");
  partkv_query_set_page_size(query, 1000);
}

/* Page bounds: a scan budget ends a page early, possibly empty, with a token. */
static void conditions_page_bounds(partkv_table_t* table, partkv_query_t* query,
                                   partkv_page_t* page, run_t* run) {
  size_t length = 0;
  partkv_query_set_filter(query, "n eq 19", 7);
  partkv_query_set_scan_budget(query, 5);
  REQUIRE_OK(partkv_table_query(table, query, page));
  CHECK_INT(partkv_page_count(page), 0);
  CHECK(partkv_page_examined(page) >= 5 && partkv_page_examined(page) <= 6);
  partkv_page_continuation(page, &length);
  CHECK(length > 0);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 1);
  CHECK(run->pages >= 4);
  partkv_query_set_scan_budget(query, UINT64_MAX); /* no bound by rows */
  partkv_query_set_scan_time_budget_ms(query, 60000);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 1);
  CHECK_INT(run->pages, 1);
  partkv_query_set_scan_budget(query, 0);
  partkv_query_set_scan_time_budget_ms(query, 0);
  partkv_query_set_filter(query, NULL, 0);
  /* page_bytes: the page ends after the entity that reaches it. */
  partkv_query_set_page_bytes(query, 1);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->total, 20);
  CHECK_INT(run->pages, 20);
  partkv_query_set_page_bytes(query, 0);
  REQUIRE(run_all(table, query, NULL, NULL, run));
  CHECK_INT(run->pages, 1);
}

/* A page as one JSON array of the service's entities. */
static void conditions_page_json(partkv_table_t* table, partkv_query_t* query,
                                 partkv_page_t* page) {
  char* json;
  partkv_entity_t* first = NULL;
  const char* end;
  size_t length = 0;
  partkv_query_set_page_size(query, 3);
  REQUIRE_OK(partkv_table_query(table, query, page));
  json = partkv_page_to_json(page, PARTKV_JSON_MINIMAL_METADATA, &length);
  REQUIRE(json != NULL);
  CHECK(length > 2 && json[0] == '[' && json[length - 1] == ']' && json[length] == '\0');
  CHECK_HAS(json, length, "\"odata.etag\":");
  CHECK_HAS(json, length, "\"PartitionKey\":\"a\",\"RowKey\":\"000002\"");
  CHECK(!pk_text_has(json, length, "000003"));
  /* Its first element is the page's first entity, read back with its ETag. */
  end = strstr(json, "},{");
  REQUIRE(end != NULL);
  REQUIRE_OK(partkv_entity_from_json(json + 1, (size_t)(end + 1 - (json + 1)), 1, &first));
  CHECK_TEXT(partkv_entity_etag(first, &length), length,
             partkv_entity_etag(partkv_page_entity(page, 0), NULL));
  CHECK_INT(pk_int32(first, "n", -1), 0);
  partkv_entity_destroy(first);
  partkv_free(json);
  json = partkv_page_to_json(page, PARTKV_JSON_NO_METADATA, &length);
  CHECK(json != NULL && !pk_text_has(json, length, "odata.etag") &&
        pk_text_has(json, length, "\"tag\":\"a\""));
  partkv_free(json);
  json = partkv_page_to_json(page, PARTKV_JSON_FULL_METADATA, NULL);
  CHECK(json != NULL && strstr(json, "\"n@odata.type\":\"Edm.Int32\"") != NULL);
  partkv_free(json);
}

void test_QueryConditions(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_t* table;
  partkv_page_t* page = partkv_page_create();
  run_t* run = (run_t*)malloc(sizeof(run_t));
  partkv_query_t* query;
  REQUIRE(store != NULL);
  REQUIRE(run != NULL);
  table = pk_create_table(store, "Conditions", NULL);
  REQUIRE(table != NULL);
  REQUIRE(fill_abcd(table, 20));

  STEP(conditions_partition_ranges(table, run));
  STEP(conditions_row_ranges(table, run));
  STEP(conditions_filter(table, run));
  query = partkv_query_create();
  STEP(conditions_select(table, query, page));
  STEP(conditions_descending(table, query, run));
  STEP(conditions_page_bounds(table, query, page, run));
  STEP(conditions_page_json(table, query, page));
  partkv_query_destroy(query);
  partkv_page_destroy(page);
  free(run);
  partkv_table_close(table);
  partkv_store_close(store);
}

void test_QueryErrors(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_t* table;
  partkv_query_t* query = partkv_query_create();
  partkv_query_t* other = partkv_query_create();
  partkv_page_t* page = partkv_page_create();
  char* token;
  char original;
  size_t length = 0;
  REQUIRE(store != NULL);
  table = pk_create_table(store, "Errors", NULL);
  REQUIRE(table != NULL);
  REQUIRE(pk_fill(table, "p", 30));
  partkv_query_set_partition_key(query, "p", 1);
  partkv_query_set_page_size(query, 10);
  REQUIRE_OK(partkv_table_query(table, query, page));
  REQUIRE_INT(partkv_page_count(page), 10);
  token = (char*)malloc(strlen(partkv_page_continuation(page, NULL)) + 1);
  strcpy(token, partkv_page_continuation(page, &length));

  /* A bad filter: InvalidArgument naming the position; the page then holds no entities. */
  partkv_query_set_filter(query, "n ge 10 and", 11);
  CHECK_CODE(partkv_table_query(table, query, page), PARTKV_INVALID_ARGUMENT, "position");
  CHECK_INT(partkv_page_count(page), 0);
  CHECK(partkv_page_entity(page, 0) == NULL);
  {
    size_t json_length = 0;
    char* json = partkv_page_to_json(page, PARTKV_JSON_MINIMAL_METADATA, &json_length);
    CHECK_TEXT(json, json_length, "[]");
    partkv_free(json);
  }
  partkv_query_set_filter(query, NULL, 0);

  /* Tokens: tampered, truncated, of another query. */
  partkv_query_set_continuation(query, "garbage", 7);
  CHECK_CODE(partkv_table_query(table, query, page), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_query_set_continuation(query, token, length / 2);
  CHECK_CODE(partkv_table_query(table, query, page), PARTKV_INVALID_ARGUMENT, NULL);
  original = token[length / 2];
  token[length / 2] = original == 'A' ? 'B' : 'A';
  partkv_query_set_continuation(query, token, length);
  CHECK_CODE(partkv_table_query(table, query, page), PARTKV_INVALID_ARGUMENT, NULL);
  token[length / 2] = original;
  partkv_query_set_continuation(query, token, length);
  CHECK_OK(partkv_table_query(table, query, page));
  partkv_query_set_continuation(other, token, length);
  CHECK_CODE(partkv_table_query(table, other, page), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_query_set_continuation(query, NULL, 0);

  /* Page sizes 1..1000; select names must be property names. */
  partkv_query_set_page_size(query, 0);
  CHECK_CODE(partkv_table_query(table, query, page), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_query_set_page_size(query, 1001);
  CHECK_CODE(partkv_table_query(table, query, page), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_query_set_page_size(query, 1000);
  partkv_query_add_select(query, "bad-name", 8);
  CHECK_CODE(partkv_table_query(table, query, page), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_query_clear_select(query);
  CHECK_OK(partkv_table_query(table, query, page));
  CHECK_INT(partkv_page_count(page), 30);

  /* NULL handles. */
  CHECK_CODE(partkv_table_query(NULL, query, page), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_query(table, NULL, page), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_query(table, query, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  free(token);
  partkv_query_destroy(query);
  partkv_query_destroy(other);
  partkv_page_destroy(page);
  partkv_table_close(table);
  partkv_store_close(store);
}

/* 60 orders of one day spread over the 8 shards; 10 of another day. */
static void shards_insert_orders(partkv_table_t* orders, partkv_entity_t* e) {
  char id[32];
  int i;
  for (i = 0; i < 70; ++i) {
    snprintf(id, sizeof id, "ORD-%03d", i);
    partkv_entity_set_partition_key(e, NULL, 0);
    partkv_entity_set_row_key(e, NULL, 0);
    partkv_entity_set_string(e, "date", 4, i < 60 ? "2014-07-09" : "2014-07-10", 10);
    partkv_entity_set_string(e, "orderId", 7, id, strlen(id));
    partkv_entity_set_int32(e, "n", 1, i);
    REQUIRE_OK(partkv_table_insert(orders, e, NULL));
  }
}

/* The table's scheme: every order of the day, merged by RowKey, paged with one token. */
static void shards_by_the_tables_scheme(partkv_table_t* orders, partkv_query_t* query, run_t* run) {
  char expected[40];
  int i, distinct = 0;
  partkv_query_set_page_size(query, 25);
  REQUIRE(run_all(orders, query, NULL, "2014-07-09", run));
  REQUIRE_INT(run->total, 60);
  CHECK_INT(run->pages, 3);
  CHECK_INT(run->page_sizes[0], 25);
  CHECK_INT(run->page_sizes[2], 10);
  CHECK(run->had_token[0] && run->had_token[1] && !run->had_token[2]);
  for (i = 0; i < 60; ++i) {
    const char* slash = strchr(run->keys[i], '/');
    snprintf(expected, sizeof expected, "ORD-%03d", i);
    if (slash == NULL || strcmp(slash + 1, expected) != 0 ||
        strncmp(run->keys[i], "2014-07-09.", 11) != 0) {
      pk_fail_text(__FILE__, __LINE__, "sharded order", run->keys[i], strlen(run->keys[i]),
                   expected);
      break;
    }
    if (i == 0 || strncmp(run->keys[i], run->keys[i - 1], 12) != 0) ++distinct;
  }
  CHECK(distinct > 1); /* the rows came from several shards */
}

/* The same with the strategy given; with a RowKey range and a filter. */
static void shards_by_a_given_strategy(partkv_table_t* orders, partkv_query_t* query,
                                       const partkv_key_strategy_t* scheme, run_t* run) {
  partkv_query_set_row_range(query, "ORD-010", 7, 1, "ORD-050", 7, 0);
  partkv_query_set_filter(query, "n ge 40", 7);
  partkv_query_set_page_size(query, 1000);
  REQUIRE(run_all(orders, query, scheme, "2014-07-09", run));
  CHECK_INT(run->total, 10);
  CHECK(strstr(run->keys[0], "/ORD-040") != NULL);
  partkv_query_set_row_range(query, NULL, 0, 1, NULL, 0, 1);
  partkv_query_set_filter(query, NULL, 0);
  REQUIRE(run_all(orders, query, NULL, "2014-07-10", run));
  CHECK_INT(run->total, 10);
}

/* A table without a scheme: the strategy names the shards; without one, InvalidArgument. */
static void shards_of_a_table_without_scheme(partkv_table_t* plain, partkv_entity_t* e,
                                             partkv_query_t* query, partkv_page_t* page,
                                             const partkv_key_strategy_t* random4, run_t* run) {
  char id[32];
  int i;
  for (i = 0; i < 12; ++i) {
    char shard[32];
    snprintf(shard, sizeof shard, "day.%d", 1 + i % 4);
    snprintf(id, sizeof id, "r%02d", i);
    partkv_entity_set_partition_key(e, shard, strlen(shard));
    partkv_entity_set_row_key(e, id, strlen(id));
    REQUIRE_OK(partkv_table_insert(plain, e, NULL));
  }
  REQUIRE(run_all(plain, query, random4, "day", run));
  CHECK_INT(run->total, 12);
  CHECK_STR(run->keys[0], "day.1/r00");
  CHECK_STR(run->keys[1], "day.2/r01");
  CHECK_STR(run->keys[11], "day.4/r11");
  CHECK_CODE(partkv_table_query_shards(plain, NULL, "day", 3, query, page), PARTKV_INVALID_ARGUMENT,
             NULL);
  CHECK_CODE(partkv_table_query_shards(NULL, random4, "day", 3, query, page),
             PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_query_shards(plain, random4, "day", 3, NULL, page),
             PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_query_shards(plain, random4, "day", 3, query, NULL),
             PARTKV_INVALID_ARGUMENT, NULL);
}

void test_QueryShards(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_options_t* options = partkv_table_options_create();
  partkv_key_strategy_t* scheme = NULL;
  partkv_key_strategy_t* rk = NULL;
  partkv_key_strategy_t* random4 = NULL;
  partkv_table_t* orders;
  partkv_table_t* plain;
  partkv_query_t* query = partkv_query_create();
  partkv_entity_t* e = partkv_entity_create();
  partkv_page_t* page = partkv_page_create();
  run_t* run = (run_t*)malloc(sizeof(run_t));
  REQUIRE(store != NULL);
  REQUIRE(run != NULL);
  REQUIRE_OK(partkv_key_strategy_parse("hash-suffix(date,orderId,8)", 27, &scheme));
  REQUIRE_OK(partkv_key_strategy_parse("concat(orderId)", 15, &rk));
  REQUIRE_OK(partkv_key_strategy_parse("random-suffix(day,4)", 20, &random4));
  partkv_table_options_set_partition_key_scheme(options, scheme);
  partkv_table_options_set_row_key_scheme(options, rk);
  orders = pk_create_table(store, "Orders", options);
  REQUIRE(orders != NULL);
  STEP(shards_insert_orders(orders, e));
  STEP(shards_by_the_tables_scheme(orders, query, run));
  STEP(shards_by_a_given_strategy(orders, query, scheme, run));
  plain = pk_create_table(store, "Plain", NULL);
  REQUIRE(plain != NULL);
  STEP(shards_of_a_table_without_scheme(plain, e, query, page, random4, run));

  free(run);
  partkv_page_destroy(page);
  partkv_entity_destroy(e);
  partkv_query_destroy(query);
  partkv_table_options_destroy(options);
  partkv_key_strategy_destroy(scheme);
  partkv_key_strategy_destroy(rk);
  partkv_key_strategy_destroy(random4);
  partkv_table_close(orders);
  partkv_table_close(plain);
  partkv_store_close(store);
}

void test_Statistics(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_options_t* options = partkv_table_options_create();
  partkv_table_t* table;
  partkv_table_stats_t* stats;
  partkv_partition_stats_t total, part, sum;
  partkv_entity_t* e;
  size_t i, length = 0;
  uint64_t operations = 0, error = 0;
  const char* hot;
  REQUIRE(store != NULL);
  partkv_table_options_set_physical_partitions(options, 4);
  table = pk_create_table(store, "Stats", options);
  partkv_table_options_destroy(options);
  REQUIRE(table != NULL);
  REQUIRE(pk_fill(table, "hot", 30));
  for (i = 0; i < 3; ++i) {
    char pk[32];
    snprintf(pk, sizeof pk, "cold%d", (int)i);
    e = pk_entity(pk, "r");
    REQUIRE_OK(partkv_table_insert(table, e, NULL));
    partkv_entity_destroy(e);
  }
  for (i = 0; i < 10; ++i) {
    e = NULL;
    REQUIRE_OK(partkv_table_get(table, "hot", 3, "000001", 6, &e));
    partkv_entity_destroy(e);
  }

  stats = partkv_table_statistics(table, 2);
  REQUIRE(stats != NULL);
  partkv_table_stats_total(stats, &total);
  CHECK_INT(total.writes, 33);
  CHECK_INT(total.reads, 10);
  CHECK(total.bytes_written > 0 && total.bytes_read > 0);
  CHECK_INT(total.throttled, 0);
  CHECK_INT(total.retry_wait_micros, 0);
  REQUIRE_INT(partkv_table_stats_partition_count(stats), 4);
  memset(&sum, 0, sizeof sum);
  for (i = 0; i < 4; ++i) {
    REQUIRE(partkv_table_stats_partition(stats, i, &part));
    CHECK_INT(part.index, i);
    sum.writes += part.writes;
    sum.reads += part.reads;
  }
  CHECK_INT(sum.writes, 33);
  CHECK_INT(sum.reads, 10);
  part.index = 77;
  CHECK_INT(partkv_table_stats_partition(stats, 4, &part), 0);
  CHECK_INT(part.index, 77); /* untouched */

  /* The hottest PartitionKey: "hot", 40 operations (an upper bound, within its error). */
  REQUIRE(partkv_table_stats_hot_count(stats) >= 1);
  CHECK(partkv_table_stats_hot_count(stats) <= 2);
  hot = partkv_table_stats_hot(stats, 0, &length, &operations, &error);
  CHECK_TEXT(hot, length, "hot");
  CHECK(operations >= 40 && operations - error <= 40);
  CHECK(partkv_table_stats_hot(stats, 2, &length, &operations, &error) == NULL);
  partkv_table_stats_destroy(stats);
  partkv_table_stats_destroy(NULL);

  /* top = 0: no hot keys. */
  stats = partkv_table_statistics(table, 0);
  REQUIRE(stats != NULL);
  CHECK_INT(partkv_table_stats_hot_count(stats), 0);
  partkv_table_stats_destroy(stats);
  partkv_table_close(table);
  partkv_store_close(store);
}

void test_Census(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_options_t* options = partkv_table_options_create();
  partkv_table_t* table;
  partkv_table_census_t* census = NULL;
  partkv_table_census_t* marker;
  partkv_partition_census_t total, part, previous;
  partkv_entity_t* e;
  size_t i, length = 0;
  uint32_t physical = 99;
  uint64_t entities = 0, bytes = 0, bytes_big = 0, sum_entities = 0;
  const char* key;
  char blob[2000];
  REQUIRE(store != NULL);
  partkv_table_options_set_physical_partitions(options, 4);
  table = pk_create_table(store, "Census", options);
  partkv_table_options_destroy(options);
  REQUIRE(table != NULL);
  REQUIRE(pk_fill(table, "big", 50));
  REQUIRE(pk_fill(table, "mid", 20));
  REQUIRE(pk_fill(table, "small", 5));
  /* "heavy": few rows, many bytes. */
  memset(blob, 'x', sizeof blob);
  for (i = 0; i < 3; ++i) {
    char rk[16];
    pk_row_key(rk, (int)i);
    e = pk_entity("heavy", rk);
    partkv_entity_set_binary(e, "blob", 4, blob, sizeof blob);
    REQUIRE_OK(partkv_table_insert(table, e, NULL));
    partkv_entity_destroy(e);
  }

  REQUIRE_OK(partkv_table_census(table, 2, 0, &census));
  partkv_table_census_total(census, &total);
  CHECK_INT(total.entities, 78);
  CHECK_INT(total.logical_partitions, 4);
  CHECK(total.bytes > 3 * sizeof blob);
  CHECK_INT(total.index, 0);
  CHECK(total.hash_lower == 0 && total.hash_upper == UINT64_MAX);
  /* The partitions cover the hash space in order. */
  REQUIRE_INT(partkv_table_census_partition_count(census), 4);
  for (i = 0; i < 4; ++i) {
    REQUIRE(partkv_table_census_partition(census, i, &part));
    CHECK_INT(part.index, i);
    if (i == 0)
      CHECK(part.hash_lower == 0);
    else
      CHECK(part.hash_lower == previous.hash_upper + 1);
    sum_entities += part.entities;
    previous = part;
  }
  CHECK(previous.hash_upper == UINT64_MAX);
  CHECK_INT(sum_entities, 78);
  part.index = 77;
  CHECK_INT(partkv_table_census_partition(census, 4, &part), 0);
  CHECK_INT(part.index, 77);
  /* The largest by entities: big, then mid, each in the partition physical_partition_of names. */
  REQUIRE_INT(partkv_table_census_largest_count(census), 2);
  key = partkv_table_census_largest(census, 0, &length, &physical, &entities, &bytes);
  CHECK_TEXT(key, length, "big");
  CHECK_INT(entities, 50);
  CHECK_INT(physical, partkv_table_physical_partition_of(table, "big", 3));
  bytes_big = bytes;
  CHECK(bytes > 0);
  key = partkv_table_census_largest(census, 1, &length, &physical, &entities, &bytes);
  CHECK_TEXT(key, length, "mid");
  CHECK_INT(entities, 20);
  CHECK(partkv_table_census_largest(census, 2, &length, &physical, &entities, &bytes) == NULL);
  partkv_table_census_destroy(census);

  /* By bytes: heavy first. */
  census = NULL;
  REQUIRE_OK(partkv_table_census(table, 1, 1, &census));
  REQUIRE_INT(partkv_table_census_largest_count(census), 1);
  key = partkv_table_census_largest(census, 0, &length, &physical, &entities, &bytes);
  CHECK_TEXT(key, length, "heavy");
  CHECK_INT(entities, 3);
  CHECK(bytes > bytes_big);
  partkv_table_census_destroy(census);
  partkv_table_census_destroy(NULL);

  /* A dropped table: NotFound, *census unchanged. */
  REQUIRE_OK(partkv_store_drop_table(store, "Census", 6));
  marker = (partkv_table_census_t*)&length;
  census = marker;
  CHECK_CODE(partkv_table_census(table, 2, 0, &census), PARTKV_NOT_FOUND, NULL);
  CHECK(census == marker);
  CHECK_CODE(partkv_table_census(NULL, 2, 0, &census), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_table_close(table);
  partkv_store_close(store);
}

/* (1) of test_Throttled: a bulk write to one azure-table PartitionKey, refused at its budget. */
static void throttled_bulk_write(partkv_table_t* table, partkv_entity_t* e) {
  partkv_bulk_writer_t* writer = NULL;
  partkv_bulk_report_t report;
  partkv_status_t* throttled = NULL;
  partkv_table_stats_t* stats;
  partkv_partition_stats_t total;
  partkv_table_census_t* census = NULL;
  partkv_partition_census_t counted;
  char rk[16];
  int i, rows = 0;
  size_t length = 0;
  const char* message;
  REQUIRE_OK(partkv_bulk_writer_create(table, NULL, &writer));
  for (i = 0; i < 10000 && throttled == NULL; ++i) {
    pk_row_key(rk, i);
    partkv_entity_set_row_key(e, rk, strlen(rk));
    throttled = partkv_bulk_writer_add(writer, e);
    if (throttled == NULL) ++rows;
  }
  REQUIRE(throttled != NULL);
  printf("  the bulk writer was throttled at row %d, retry after %lld ms\n", rows,
         (long long)partkv_status_retry_after_ms(throttled));
  CHECK_INT(partkv_status_code(throttled), PARTKV_THROTTLED);
  CHECK(partkv_status_retry_after_ms(throttled) > 0);
  CHECK(partkv_status_retry_after_ms(throttled) <= 1000);
  CHECK_INT(partkv_status_failed_op(throttled), -1);
  message = partkv_status_message(throttled, &length);
  CHECK_HAS(message, length, "partition 'hot' is over its budget of 2000");
  partkv_status_destroy(throttled);
  /* Groups of 2,000 rows; the one refused is the one the row that did not fit would follow:
   * rows 2000..3999 when row 4000 came (a much slower machine might see a later one refused). */
  CHECK(rows >= 4000 && rows % 2000 == 0);
  partkv_bulk_writer_report(writer, &report);
  CHECK_INT(report.throttled, 1);
  CHECK_INT(report.rows_written, rows - 2000);
  CHECK_INT(report.rows_added, rows);                    /* the row refused was not taken */
  CHECK(partkv_bulk_writer_error(writer) == NULL);       /* throttled is not a stop */
  partkv_bulk_writer_destroy(writer);                    /* drops the rows not written */
  REQUIRE_OK(partkv_table_census(table, 0, 0, &census)); /* the census reads without a budget */
  partkv_table_census_total(census, &counted);
  CHECK_INT(counted.entities, rows - 2000);
  partkv_table_census_destroy(census);
  stats = partkv_table_statistics(table, 1);
  partkv_table_stats_total(stats, &total);
  CHECK_INT(total.throttled, 1);
  partkv_table_stats_destroy(stats);
}

/* (2) of test_Throttled: a dynamodb batch of three big items, over a new partition's WCUs. */
static void throttled_big_batch(partkv_table_t* dynamo, partkv_entity_t* e) {
  partkv_status_t* throttled = NULL;
  partkv_table_stats_t* stats;
  partkv_partition_stats_t total;
  partkv_table_census_t* census = NULL;
  partkv_partition_census_t counted;
  partkv_batch_t* batch;
  char* blob;
  char rk[16];
  int i;
  size_t length = 0;
  const char* message;
  blob = (char*)malloc(380000);
  REQUIRE(blob != NULL);
  memset(blob, 'x', 380000);
  batch = partkv_batch_create();
  partkv_entity_set_partition_key(e, "big", 3);
  for (i = 0; i < 3; ++i) {
    pk_row_key(rk, i);
    partkv_entity_set_row_key(e, rk, strlen(rk));
    partkv_entity_set_binary(e, "blob", 4, blob, 380000);
    partkv_batch_add(batch, PARTKV_OP_INSERT, e, NULL, 0);
  }
  free(blob);
  throttled = partkv_table_submit(dynamo, batch, NULL);
  CHECK_INT(partkv_status_code(throttled), PARTKV_THROTTLED);
  /* 3 x 372 WCU = 1,116 against 1,000: 116 ms at 1,000 WCU/s. */
  CHECK(partkv_status_retry_after_ms(throttled) >= 100 &&
        partkv_status_retry_after_ms(throttled) <= 130);
  CHECK_INT(partkv_status_failed_op(throttled), -1);
  message = partkv_status_message(throttled, &length);
  CHECK_HAS(message, length, "partition 'big' is over its budget of 1000");
  partkv_status_destroy(throttled);
  /* Nothing of it was written; a small write fits the budget. */
  census = NULL;
  REQUIRE_OK(partkv_table_census(dynamo, 0, 0, &census));
  partkv_table_census_total(census, &counted);
  CHECK_INT(counted.entities, 0);
  partkv_table_census_destroy(census);
  partkv_batch_clear(batch);
  partkv_entity_set_binary(e, "blob", 4, "small", 5);
  partkv_batch_add(batch, PARTKV_OP_INSERT, e, NULL, 0);
  CHECK_OK(partkv_table_submit(dynamo, batch, NULL));
  stats = partkv_table_statistics(dynamo, 1);
  partkv_table_stats_total(stats, &total);
  CHECK_INT(total.throttled, 1);
  CHECK_INT(total.writes, 1);
  partkv_table_stats_destroy(stats);
  partkv_batch_destroy(batch);
}

void test_Throttled(void) {
  /* docs/profiles.md. (1) azure-table: each PartitionKey's budget is 2,000 entities/s, a new one
   * starting with one second of it. A bulk write of thousands of rows to one PartitionKey writes
   * a first group of 2,000 rows (all of the budget) and is refused the second until the budget
   * has refilled, a second later: the time the writer takes to gather 2,000 more rows is far
   * less, natively or under Valgrind (about a tenth of it there). (2) dynamodb: 1,000 WCU/s per
   * PartitionKey, a new one starting with 1,000, and an item costs a WCU per KB: a batch of three
   * items of 380,000 bytes costs more than a new partition has, whatever the time. */
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_options_t* options = partkv_table_options_create();
  partkv_table_t* table;
  partkv_table_t* dynamo;
  partkv_entity_t* e = pk_entity("hot", "");
  partkv_table_info_t* info;
  REQUIRE(store != NULL);
  partkv_table_options_set_profile(options, "azure-table", 11);
  partkv_table_options_set_throttling(options, 1);
  table = pk_create_table(store, "Hot", options);
  REQUIRE(table != NULL);
  info = partkv_table_info(table);
  CHECK_INT(partkv_table_info_throttling(info), 1);
  partkv_table_info_destroy(info);

  STEP(throttled_bulk_write(table, e));

  /* (2) */
  partkv_table_options_set_profile(options, "dynamodb", 8);
  dynamo = pk_create_table(store, "Dynamo", options);
  REQUIRE(dynamo != NULL);
  STEP(throttled_big_batch(dynamo, e));

  partkv_entity_destroy(e);
  partkv_table_options_destroy(options);
  partkv_table_close(table);
  partkv_table_close(dynamo);
  partkv_store_close(store);
}
