/* Tables: every write with its If-Match rules, point reads, key schemes (compute_keys,
 * get_by_attributes), physical partitions, batches (partkv/c.h "Tables", "Batches";
 * partkv/table.h, batch.h; docs/errors.md). */

#include <stdlib.h>

#include "harness.h"

/* An owned copy of the entity's ETag (the borrowed one ends when the entity is written). */
static char* etag_of(const partkv_entity_t* e) {
  size_t length = 0;
  const char* etag = partkv_entity_etag(e, &length);
  char* copy = (char*)malloc(length + 1);
  if (copy != NULL) {
    memcpy(copy, etag, length);
    copy[length] = '\0';
  }
  return copy;
}

/* The stored entity, or NULL when it is missing (anything but NotFound is a failure). */
static partkv_entity_t* get(const partkv_table_t* table, const char* pk, const char* rk) {
  partkv_entity_t* e = NULL;
  partkv_status_t* s = partkv_table_get(table, pk, strlen(pk), rk, strlen(rk), &e);
  if (s != NULL) {
    if (partkv_status_code(s) != PARTKV_NOT_FOUND)
      pk_ok(s, __FILE__, __LINE__, "get");
    else
      partkv_status_destroy(s);
    return NULL;
  }
  return e;
}

/* Insert sets the store's ETag (Azure's form) and Timestamp on the entity. */
static void writes_insert(partkv_table_t* table, partkv_entity_t* e,
                          const partkv_write_options_t* sync) {
  size_t length = 0;
  const char* text;
  partkv_entity_set_string(e, "Item", 4, "keyboard", 8);
  partkv_entity_set_int32(e, "Quantity", 8, 2);
  REQUIRE_OK(partkv_table_insert(table, e, sync));
  text = partkv_entity_etag(e, &length);
  CHECK(length > 0 && strncmp(text, "W/\"datetime'", 12) == 0);
  CHECK(partkv_entity_timestamp(e) > PARTKV_UNIX_EPOCH_TICKS);
}

/* The point read returns the same ETag and Timestamp. */
static void writes_point_read(partkv_table_t* table, const partkv_entity_t* e,
                              const char* first_etag) {
  partkv_entity_t* got;
  size_t length = 0;
  got = get(table, "customer-42", "order-0001");
  REQUIRE(got != NULL);
  CHECK_TEXT(partkv_entity_etag(got, &length), length, first_etag);
  CHECK_INT(partkv_entity_timestamp(got), partkv_entity_timestamp(e));
  CHECK_INT(pk_int32(got, "Quantity", 0), 2);
  CHECK_INT(partkv_entity_property_count(got), 2);
  partkv_entity_destroy(got);
}

/* Insert of an existing row: AlreadyExists, the entity's ETag unchanged. */
static void writes_existing_row(partkv_table_t* table, partkv_entity_t* e, const char* first_etag) {
  size_t length = 0;
  CHECK_CODE(partkv_table_insert(table, e, NULL), PARTKV_ALREADY_EXISTS,
             "entity (PartitionKey 'customer-42', RowKey 'order-0001') already exists");
  CHECK_TEXT(partkv_entity_etag(e, &length), length, first_etag);
}

/* Replace with the current ETag, passed straight from the entity (borrowed until the write
 * sets a new one): OK, a new ETag, properties absent from the entity dropped. Then a stale
 * ETag. */
static void writes_replace(partkv_table_t* table, partkv_entity_t* e, const char* first_etag) {
  partkv_entity_t* got;
  char* etag;
  size_t length = 0;
  const char* text;
  partkv_entity_remove(e, "Item", 4);
  partkv_entity_set_int32(e, "Quantity", 8, 3);
  text = partkv_entity_etag(e, &length);
  REQUIRE_OK(partkv_table_replace(table, e, text, length, NULL));
  etag = etag_of(e);
  CHECK(strcmp(etag, first_etag) != 0);
  got = get(table, "customer-42", "order-0001");
  REQUIRE(got != NULL);
  CHECK_INT(pk_int32(got, "Quantity", 0), 3);
  CHECK_INT(partkv_entity_find(got, "Item", 4, NULL), 0);
  CHECK_TEXT(partkv_entity_etag(got, &length), length, etag);
  partkv_entity_destroy(got);

  /* A stale ETag: PreconditionFailed, nothing changed. */
  partkv_entity_set_int32(e, "Quantity", 8, 99);
  CHECK_CODE(partkv_table_replace(table, e, first_etag, strlen(first_etag), NULL),
             PARTKV_PRECONDITION_FAILED, "does not match the current ETag");
  CHECK_CODE(partkv_table_replace(table, e, "garbage", 7, NULL), PARTKV_PRECONDITION_FAILED,
             "If-Match ETag garbage does not match the current ETag");
  CHECK_CODE(partkv_table_merge(table, e, first_etag, strlen(first_etag), NULL),
             PARTKV_PRECONDITION_FAILED, NULL);
  got = get(table, "customer-42", "order-0001");
  REQUIRE(got != NULL);
  CHECK_INT(pk_int32(got, "Quantity", 0), 3);
  CHECK_TEXT(partkv_entity_etag(got, &length), length, etag);
  partkv_entity_destroy(got);
  free(etag);
}

/* "*" and NULL: any ETag. */
static void writes_any_etag(partkv_table_t* table, partkv_entity_t* e,
                            const partkv_write_options_t* sync) {
  partkv_entity_set_int32(e, "Quantity", 8, 4);
  CHECK_OK(partkv_table_replace(table, e, "*", 1, NULL));
  partkv_entity_set_int32(e, "Quantity", 8, 5);
  CHECK_OK(partkv_table_replace(table, e, NULL, 0, sync));
}

/* Merge keeps the properties it does not carry. */
static void writes_merge(partkv_table_t* table, const partkv_write_options_t* sync) {
  partkv_entity_t* e;
  partkv_entity_t* got;
  char* etag;
  size_t length = 0;
  e = pk_entity("customer-42", "order-0001");
  partkv_entity_set_string(e, "Note", 4, "gift", 4);
  got = get(table, "customer-42", "order-0001");
  REQUIRE(got != NULL);
  etag = etag_of(got);
  partkv_entity_destroy(got);
  REQUIRE_OK(partkv_table_merge(table, e, etag, strlen(etag), NULL));
  CHECK(strcmp(partkv_entity_etag(e, NULL), etag) != 0); /* the merge's new ETag */
  free(etag);
  got = get(table, "customer-42", "order-0001");
  REQUIRE(got != NULL);
  CHECK_INT(pk_int32(got, "Quantity", 0), 5);
  CHECK_INT(partkv_entity_find(got, "Note", 4, NULL), 1);
  CHECK_TEXT(partkv_entity_etag(got, &length), length, partkv_entity_etag(e, NULL));
  partkv_entity_destroy(got);
  CHECK_OK(partkv_table_merge(table, e, NULL, 0, sync));
  partkv_entity_destroy(e);
}

/* The upserts: create when missing; replace or merge when present. */
static void writes_upserts(partkv_table_t* table, partkv_entity_t* e,
                           const partkv_write_options_t* sync) {
  partkv_entity_t* got;
  partkv_entity_set_int32(e, "a", 1, 1);
  partkv_entity_set_int32(e, "b", 1, 1);
  CHECK_OK(partkv_table_insert_or_replace(table, e, NULL));
  CHECK(partkv_entity_timestamp(e) > 0);
  partkv_entity_clear_properties(e);
  partkv_entity_set_int32(e, "a", 1, 2);
  CHECK_OK(partkv_table_insert_or_merge(table, e, sync));
  got = get(table, "customer-42", "order-0002");
  REQUIRE(got != NULL);
  CHECK_INT(pk_int32(got, "a", 0), 2);
  CHECK_INT(pk_int32(got, "b", 0), 1); /* merged */
  partkv_entity_destroy(got);
  CHECK_OK(partkv_table_insert_or_replace(table, e, sync));
  got = get(table, "customer-42", "order-0002");
  REQUIRE(got != NULL);
  CHECK_INT(partkv_entity_find(got, "b", 1, NULL), 0); /* replaced */
  partkv_entity_destroy(got);
  partkv_entity_set_row_key(e, "order-0003", 10);
  CHECK_OK(partkv_table_insert_or_merge(table, e, NULL));
  got = get(table, "customer-42", "order-0003");
  CHECK(got != NULL);
  partkv_entity_destroy(got);
}

/* Delete: a stale ETag is PreconditionFailed; the current one deletes; then NotFound. */
static void writes_delete(partkv_table_t* table, partkv_entity_t* e, const char* first_etag,
                          const partkv_write_options_t* sync) {
  partkv_entity_t* got;
  partkv_entity_t* marker;
  char* etag;
  CHECK_CODE(partkv_table_delete(table, "customer-42", 11, "order-0001", 10, first_etag,
                                 strlen(first_etag), NULL),
             PARTKV_PRECONDITION_FAILED, NULL);
  got = get(table, "customer-42", "order-0001");
  REQUIRE(got != NULL);
  etag = etag_of(got);
  partkv_entity_destroy(got);
  CHECK_OK(partkv_table_delete(table, "customer-42XX", 11, "order-0001XX", 10, etag, strlen(etag),
                               sync));
  free(etag);
  marker = e;
  got = marker;
  CHECK_CODE(partkv_table_get(table, "customer-42", 11, "order-0001", 10, &got), PARTKV_NOT_FOUND,
             "entity (PartitionKey 'customer-42', RowKey 'order-0001') does not exist");
  CHECK(got == marker); /* left as it was */
  CHECK_CODE(partkv_table_delete(table, "customer-42", 11, "order-0001", 10, "*", 1, NULL),
             PARTKV_NOT_FOUND, NULL);
  CHECK_OK(partkv_table_delete(table, "customer-42", 11, "order-0003", 10, NULL, 0, NULL));
  CHECK(get(table, "customer-42", "order-0003") == NULL);
  partkv_entity_set_row_key(e, "order-0001", 10);
  CHECK_CODE(partkv_table_replace(table, e, "*", 1, NULL), PARTKV_NOT_FOUND, NULL);
  CHECK_CODE(partkv_table_merge(table, e, NULL, 0, NULL), PARTKV_NOT_FOUND, NULL);
}

/* Invalid input: InvalidArgument naming the limit (docs/errors.md K01, P02). */
static void writes_invalid_input(partkv_table_t* table, partkv_entity_t* e) {
  partkv_entity_set_partition_key(e, "a/b", 3);
  CHECK_CODE(partkv_table_insert(table, e, NULL), PARTKV_INVALID_ARGUMENT,
             "PartitionKey 'a/b' contains the forbidden character '/'");
  partkv_entity_set_partition_key(e, "ok", 2);
  partkv_entity_set_int32(e, "1abc", 4, 1);
  CHECK_CODE(partkv_table_insert_or_replace(table, e, NULL), PARTKV_INVALID_ARGUMENT,
             "property name '1abc' must start with a letter or '_'");
  CHECK_CODE(partkv_table_delete(table, "alpha#", 6, "r", 1, NULL, 0, NULL),
             PARTKV_INVALID_ARGUMENT, "contains the forbidden character '#'");
}

void test_Writes(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_t* table;
  partkv_write_options_t* sync = partkv_write_options_create();
  partkv_entity_t* e;
  char* first_etag;
  REQUIRE(store != NULL);
  REQUIRE(sync != NULL);
  partkv_write_options_set_sync(sync, 1);
  partkv_write_options_set_sync(NULL, 1);
  table = pk_create_table(store, "Orders", NULL);
  REQUIRE(table != NULL);

  e = pk_entity("customer-42", "order-0001");
  STEP(writes_insert(table, e, sync));
  first_etag = etag_of(e);
  STEP(writes_point_read(table, e, first_etag));
  writes_existing_row(table, e, first_etag);
  STEP(writes_replace(table, e, first_etag));
  writes_any_etag(table, e, sync);
  partkv_entity_destroy(e);
  STEP(writes_merge(table, sync));
  e = pk_entity("customer-42", "order-0002");
  STEP(writes_upserts(table, e, sync));
  STEP(writes_delete(table, e, first_etag, sync));
  writes_invalid_input(table, e);

  free(first_etag);
  partkv_entity_destroy(e);
  partkv_write_options_destroy(sync);
  partkv_write_options_destroy(NULL);
  partkv_table_close(table);
  partkv_store_close(store);
}

/* An insert without keys computes them: AB1's code-point product suffix is 11 of 200. */
static void keys_computed_on_insert(partkv_table_t* orders, partkv_entity_t* e) {
  partkv_entity_t* got;
  partkv_entity_t* computed = NULL;
  size_t length = 0;
  const char* text;
  partkv_entity_set_string(e, "date", 4, "2014-07-09", 10);
  partkv_entity_set_string(e, "orderId", 7, "AB1", 3);
  partkv_entity_set_int32(e, "n", 1, 7);
  REQUIRE_OK(partkv_table_compute_keys(orders, e, PARTKV_OP_INSERT, &computed));
  text = partkv_entity_partition_key(computed, &length);
  CHECK_TEXT(text, length, "2014-07-09.11");
  CHECK_TEXT(partkv_entity_row_key(computed, &length), length, "AB1");
  CHECK_INT(pk_int32(computed, "n", 0), 7); /* the properties are kept */
  partkv_entity_destroy(computed);
  CHECK_TEXT(partkv_entity_partition_key(e, &length), length, ""); /* its input unchanged */
  REQUIRE_OK(partkv_table_insert(orders, e, NULL));
  got = get(orders, "2014-07-09.11", "AB1");
  REQUIRE(got != NULL);
  CHECK_INT(pk_int32(got, "n", 0), 7);
  partkv_entity_destroy(got);
}

/* A point read by natural attributes. */
static void keys_read_by_attributes(partkv_table_t* orders, partkv_table_t* plain,
                                    partkv_entity_t* ask) {
  partkv_entity_t* got;
  partkv_entity_t* marker;
  partkv_entity_set_string(ask, "date", 4, "2014-07-09", 10);
  partkv_entity_set_string(ask, "orderId", 7, "AB1", 3);
  got = NULL;
  REQUIRE_OK(partkv_table_get_by_attributes(orders, ask, &got));
  CHECK_INT(pk_int32(got, "n", 0), 7);
  CHECK(partkv_entity_timestamp(got) > 0);
  partkv_entity_destroy(got);
  marker = ask;
  got = marker;
  partkv_entity_set_string(ask, "orderId", 7, "AB2", 3);
  CHECK_CODE(partkv_table_get_by_attributes(orders, ask, &got), PARTKV_NOT_FOUND, NULL);
  partkv_entity_remove(ask, "date", 4);
  CHECK_CODE(partkv_table_get_by_attributes(orders, ask, &got), PARTKV_INVALID_ARGUMENT, "date");
  CHECK_CODE(partkv_table_compute_keys(orders, ask, PARTKV_OP_INSERT, &got),
             PARTKV_INVALID_ARGUMENT, "date");
  /* A table without schemes cannot read by attributes. */
  CHECK_CODE(partkv_table_get_by_attributes(plain, ask, &got), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK(got == marker);
}

/* Given keys are kept. */
static void keys_given_are_kept(partkv_table_t* orders, partkv_entity_t* e) {
  partkv_entity_t* got;
  partkv_entity_t* computed;
  size_t length = 0;
  partkv_entity_set_partition_key(e, "manual", 6);
  partkv_entity_set_row_key(e, "r", 1);
  computed = NULL;
  REQUIRE_OK(partkv_table_compute_keys(orders, e, PARTKV_OP_REPLACE, &computed));
  CHECK_TEXT(partkv_entity_partition_key(computed, &length), length, "manual");
  CHECK_TEXT(partkv_entity_row_key(computed, &length), length, "r");
  partkv_entity_destroy(computed);
  CHECK_OK(partkv_table_insert(orders, e, NULL));
  got = get(orders, "manual", "r");
  CHECK(got != NULL);
  partkv_entity_destroy(got);
}

/* Random suffixes: drawn for an insert, refused for the writes that address a row. */
static void keys_random_suffixes(partkv_table_t* randoms, partkv_entity_t* e,
                                 partkv_entity_t* ask) {
  partkv_entity_t* got;
  partkv_entity_t* computed;
  size_t length = 0;
  const char* text;
  partkv_entity_set_partition_key(e, NULL, 0);
  partkv_entity_set_row_key(e, NULL, 0);
  computed = NULL;
  REQUIRE_OK(partkv_table_compute_keys(randoms, e, PARTKV_OP_INSERT, &computed));
  text = partkv_entity_partition_key(computed, &length);
  CHECK(length >= 12 && strncmp(text, "2014-07-09.", 11) == 0 && atoi(text + 11) >= 1 &&
        atoi(text + 11) <= 50);
  /* The computed entity goes on to the write unchanged: its keys are no longer empty. */
  CHECK_OK(partkv_table_insert(randoms, computed, NULL));
  got = get(randoms, partkv_entity_partition_key(computed, NULL), "AB1");
  CHECK(got != NULL);
  partkv_entity_destroy(got);
  partkv_entity_destroy(computed);
  got = NULL;
  CHECK_CODE(partkv_table_compute_keys(randoms, e, PARTKV_OP_REPLACE, &got),
             PARTKV_INVALID_ARGUMENT, "random suffix");
  CHECK_CODE(partkv_table_replace(randoms, e, "*", 1, NULL), PARTKV_INVALID_ARGUMENT,
             "random suffix");
  /* get_by_attributes looks a random suffix up in every shard. */
  partkv_entity_set_string(ask, "date", 4, "2014-07-09", 10);
  partkv_entity_set_string(ask, "orderId", 7, "AB1", 3);
  REQUIRE_OK(partkv_table_get_by_attributes(randoms, ask, &got));
  CHECK_INT(pk_int32(got, "n", 0), 7);
  partkv_entity_destroy(got);
}

/* A table without schemes returns the entity unchanged. */
static void keys_table_without_schemes(partkv_table_t* plain, partkv_entity_t* e) {
  partkv_entity_t* computed;
  size_t length = 0;
  computed = NULL;
  REQUIRE_OK(partkv_table_compute_keys(plain, e, PARTKV_OP_INSERT, &computed));
  CHECK_TEXT(partkv_entity_partition_key(computed, &length), length, "");
  CHECK_INT(partkv_entity_property_count(computed), 3);
  partkv_entity_destroy(computed);
}

void test_KeySchemes(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_options_t* options = partkv_table_options_create();
  partkv_key_strategy_t* pk_scheme = NULL;
  partkv_key_strategy_t* rk_scheme = NULL;
  partkv_key_strategy_t* random_scheme = NULL;
  partkv_table_t* orders;
  partkv_table_t* randoms;
  partkv_table_t* plain;
  partkv_entity_t* e;
  partkv_entity_t* ask;
  REQUIRE(store != NULL);
  REQUIRE_OK(partkv_key_strategy_parse("hash-suffix(date,orderId,200,hash=codepoint-product)", 52,
                                       &pk_scheme));
  REQUIRE_OK(partkv_key_strategy_parse("concat(orderId)", 15, &rk_scheme));
  REQUIRE_OK(partkv_key_strategy_parse("random-suffix(date,50)", 22, &random_scheme));
  partkv_table_options_set_partition_key_scheme(options, pk_scheme);
  partkv_table_options_set_row_key_scheme(options, rk_scheme);
  orders = pk_create_table(store, "Orders", options);
  REQUIRE(orders != NULL);
  partkv_table_options_set_partition_key_scheme(options, random_scheme);
  randoms = pk_create_table(store, "Randoms", options);
  REQUIRE(randoms != NULL);
  plain = pk_create_table(store, "Plain", NULL);
  REQUIRE(plain != NULL);

  e = partkv_entity_create();
  STEP(keys_computed_on_insert(orders, e));
  ask = partkv_entity_create();
  STEP(keys_read_by_attributes(orders, plain, ask));
  STEP(keys_given_are_kept(orders, e));
  STEP(keys_random_suffixes(randoms, e, ask));
  STEP(keys_table_without_schemes(plain, e));

  partkv_entity_destroy(ask);
  partkv_entity_destroy(e);
  partkv_table_options_destroy(options);
  partkv_key_strategy_destroy(pk_scheme);
  partkv_key_strategy_destroy(rk_scheme);
  partkv_key_strategy_destroy(random_scheme);
  partkv_table_close(orders);
  partkv_table_close(randoms);
  partkv_table_close(plain);
  partkv_store_close(store);
}

void test_PhysicalPartitions(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_options_t* options = partkv_table_options_create();
  partkv_table_t* table;
  partkv_table_census_t* census = NULL;
  partkv_partition_census_t part;
  char pk[32];
  uint32_t where[40];
  int i, seen[4] = {0, 0, 0, 0};
  REQUIRE(store != NULL);
  partkv_table_options_set_physical_partitions(options, 4);
  table = pk_create_table(store, "Spread", options);
  partkv_table_options_destroy(options);
  REQUIRE(table != NULL);
  /* 40 PartitionKeys of one row each: each lands in the partition physical_partition_of names,
   * which the census counts. */
  for (i = 0; i < 40; ++i) {
    partkv_entity_t* e;
    snprintf(pk, sizeof pk, "key-%d", i);
    where[i] = partkv_table_physical_partition_of(table, pk, strlen(pk));
    REQUIRE(where[i] < 4);
    CHECK_INT(partkv_table_physical_partition_of(table, pk, strlen(pk)), where[i]);
    ++seen[where[i]];
    e = pk_entity(pk, "r");
    REQUIRE_OK(partkv_table_insert(table, e, NULL));
    partkv_entity_destroy(e);
  }
  REQUIRE_OK(partkv_table_census(table, 0, 0, &census));
  REQUIRE_INT(partkv_table_census_partition_count(census), 4);
  for (i = 0; i < 4; ++i) {
    REQUIRE(partkv_table_census_partition(census, (size_t)i, &part));
    CHECK_INT(part.index, i);
    CHECK_INT(part.entities, seen[i]);
    CHECK_INT(part.logical_partitions, seen[i]);
  }
  partkv_table_census_destroy(census);
  /* The length counts: "key-1" of "key-12". */
  CHECK_INT(partkv_table_physical_partition_of(table, "key-12", 5), where[1]);
  CHECK_INT(partkv_table_physical_partition_of(NULL, "key-1", 5), 0);
  partkv_table_close(table);
  partkv_store_close(store);
}

void test_Batches(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_t* table;
  partkv_batch_t* batch = partkv_batch_create();
  partkv_entity_t* e;
  partkv_entity_t* got;
  char* etag3;
  size_t length = 0, i;
  const char* text;
  REQUIRE(store != NULL);
  REQUIRE(batch != NULL);
  table = pk_create_table(store, "Batches", NULL);
  REQUIRE(table != NULL);

  /* Rows 3, 4, 5 exist before the batch. */
  for (i = 3; i <= 5; ++i) {
    char rk[16];
    pk_row_key(rk, (int)i);
    e = pk_entity("b", rk);
    partkv_entity_set_int32(e, "n", 1, (int32_t)i);
    partkv_entity_set_int32(e, "keep", 4, 1);
    REQUIRE_OK(partkv_table_insert(table, e, NULL));
    partkv_entity_destroy(e);
  }
  got = get(table, "b", "000003");
  REQUIRE(got != NULL);
  etag3 = etag_of(got);
  partkv_entity_destroy(got);

  /* Every kind of operation, applied together. */
  e = pk_entity("b", "000000");
  partkv_entity_set_int32(e, "n", 1, 100);
  partkv_batch_add(batch, PARTKV_OP_INSERT, e, NULL, 0);
  partkv_entity_set_row_key(e, "000001", 6);
  partkv_batch_add(batch, PARTKV_OP_INSERT_OR_REPLACE, e, NULL, 0);
  partkv_entity_set_row_key(e, "000002", 6);
  partkv_batch_add(batch, PARTKV_OP_INSERT_OR_MERGE, e, NULL, 0);
  partkv_entity_set_row_key(e, "000003", 6);
  partkv_batch_add(batch, PARTKV_OP_REPLACE, e, etag3, strlen(etag3));
  partkv_entity_set_row_key(e, "000004", 6);
  partkv_batch_add(batch, PARTKV_OP_MERGE, e, "*", 1);
  partkv_batch_add_delete(batch, "b", 1, "000005", 6, NULL, 0);
  /* The batch copied the entity: changing it now changes nothing. */
  partkv_entity_set_int32(e, "n", 1, -1);
  partkv_entity_destroy(e);
  CHECK_INT(partkv_batch_size(batch), 6);
  /* Before the submit: "" and 0. */
  CHECK_TEXT(partkv_batch_etag(batch, 0, &length), length, "");
  CHECK_INT(partkv_batch_timestamp(batch, 0), 0);

  REQUIRE_OK(partkv_table_submit(table, batch, NULL));
  /* Each operation's ETag and Timestamp are the stored entity's. */
  for (i = 0; i < 5; ++i) {
    char rk[16];
    pk_row_key(rk, (int)i);
    got = get(table, "b", rk);
    if (got == NULL) {
      pk_fail(__FILE__, __LINE__, rk);
      continue;
    }
    text = partkv_batch_etag(batch, i, &length);
    CHECK(length > 0);
    CHECK_TEXT(text, length, partkv_entity_etag(got, NULL));
    CHECK_INT(text[length], '\0');
    CHECK_INT(partkv_batch_timestamp(batch, i), partkv_entity_timestamp(got));
    CHECK_INT(pk_int32(got, "n", 0), 100);
    CHECK_INT(pk_int32(got, "keep", 0), i == 4 ? 1 : 0); /* merged, or replaced */
    partkv_entity_destroy(got);
  }
  CHECK(get(table, "b", "000005") == NULL);                     /* deleted */
  CHECK_TEXT(partkv_batch_etag(batch, 5, &length), length, ""); /* a delete's */
  CHECK_TEXT(partkv_batch_etag(batch, 6, &length), length, ""); /* out of range */
  CHECK_INT(partkv_batch_timestamp(batch, 6), 0);
  /* ETags never repeat: the replaced row's is new. */
  CHECK(strcmp(partkv_batch_etag(batch, 3, NULL), etag3) != 0);

  /* The same operations again: the inserts now conflict; nothing is applied. */
  CHECK_CODE(partkv_table_submit(table, batch, NULL), PARTKV_ALREADY_EXISTS, "operation 0");
  partkv_batch_clear(batch);
  CHECK_INT(partkv_batch_size(batch), 0);
  CHECK_TEXT(partkv_batch_etag(batch, 0, &length), length, "");

  /* A stale If-Match on a delete. */
  partkv_batch_add_delete(batch, "b", 1, "000003", 6, etag3, strlen(etag3));
  {
    partkv_status_t* s = partkv_table_submit(table, batch, NULL);
    CHECK_INT(partkv_status_code(s), PARTKV_PRECONDITION_FAILED);
    CHECK_INT(partkv_status_failed_op(s), 0);
    partkv_status_destroy(s);
  }
  got = get(table, "b", "000003"); /* not deleted */
  CHECK(got != NULL);
  partkv_entity_destroy(got);
  free(etag3);
  partkv_batch_destroy(batch);
  partkv_batch_destroy(NULL);
  partkv_table_close(table);
  partkv_store_close(store);
}

/* A batch of inserts into `pk` of rows first .. first+count-1. */
static partkv_batch_t* inserts(const char* pk, int first, int count) {
  partkv_batch_t* batch = partkv_batch_create();
  partkv_entity_t* e = pk_entity(pk, "");
  char rk[16];
  int i;
  for (i = first; i < first + count; ++i) {
    pk_row_key(rk, i);
    partkv_entity_set_row_key(e, rk, strlen(rk));
    partkv_entity_set_int32(e, "n", 1, i);
    partkv_batch_add(batch, PARTKV_OP_INSERT, e, NULL, 0);
  }
  partkv_entity_destroy(e);
  return batch;
}

/* Submitting `batch` fails with `code`, naming operation `op` (failed_op and message). */
static void check_batch_fails(partkv_table_t* table, partkv_batch_t* batch, partkv_code_t code,
                              int op, const char* fragment, int line) {
  partkv_status_t* s = partkv_table_submit(table, batch, NULL);
  size_t length = 0;
  const char* message = partkv_status_message(s, &length);
  char named[32];
  if (partkv_status_code(s) != code) {
    pk_fail_int(__FILE__, line, "batch code", partkv_status_code(s), code);
  }
  if (partkv_status_failed_op(s) != op) {
    pk_fail_int(__FILE__, line, "failed_op", partkv_status_failed_op(s), op);
  }
  snprintf(named, sizeof named, "operation %d", op);
  if (!pk_text_has(message, length, named))
    pk_fail_text(__FILE__, line, "names the operation", message, length, named);
  if (fragment != NULL && !pk_text_has(message, length, fragment)) {
    pk_fail_text(__FILE__, line, "message", message, length, fragment);
  }
  partkv_status_destroy(s);
}

void test_BatchFailures(void) {
  partkv_store_t* store = pk_open_store("store", NULL);
  partkv_table_t* table;
  partkv_batch_t* batch;
  partkv_entity_t* e;
  size_t length = 0;
  REQUIRE(store != NULL);
  table = pk_create_table(store, "Batches", NULL);
  REQUIRE(table != NULL);

  /* 100 inserts whose 58th row exists: AlreadyExists at operation 57, nothing written. */
  e = pk_entity("p", "000057");
  REQUIRE_OK(partkv_table_insert(table, e, NULL));
  partkv_entity_destroy(e);
  batch = inserts("p", 0, 100);
  check_batch_fails(table, batch, PARTKV_ALREADY_EXISTS, 57, "already exists", __LINE__);
  CHECK(get(table, "p", "000000") == NULL);
  CHECK(get(table, "p", "000099") == NULL);
  partkv_batch_destroy(batch);

  /* 101 operations (docs/errors.md B01). */
  batch = inserts("q", 0, 101);
  check_batch_fails(table, batch, PARTKV_INVALID_ARGUMENT, 100,
                    "the batch has 101 operations; the limit is 100", __LINE__);
  partkv_batch_destroy(batch);

  /* Two PartitionKeys (B04): partkv::Status::failed_op() names operation 1 (batch_rules.cc). */
  batch = inserts("q", 0, 1);
  e = pk_entity("other", "000001");
  partkv_batch_add(batch, PARTKV_OP_INSERT, e, NULL, 0);
  partkv_entity_destroy(e);
  check_batch_fails(table, batch, PARTKV_INVALID_ARGUMENT, 1,
                    "all operations of a batch must share one PartitionKey", __LINE__);
  CHECK(get(table, "q", "000000") == NULL);
  partkv_batch_destroy(batch);

  /* One row twice (B03). */
  batch = inserts("q", 0, 2);
  partkv_batch_add_delete(batch, "q", 1, "000001", 6, NULL, 0);
  check_batch_fails(table, batch, PARTKV_INVALID_ARGUMENT, 2, "already present in the batch",
                    __LINE__);
  partkv_batch_destroy(batch);

  /* A bad key in the third operation (B05). */
  batch = inserts("q", 0, 2);
  e = pk_entity("q", "3?");
  partkv_batch_add(batch, PARTKV_OP_INSERT, e, NULL, 0);
  partkv_entity_destroy(e);
  check_batch_fails(table, batch, PARTKV_INVALID_ARGUMENT, 2,
                    "RowKey '3?' contains the forbidden character '?'", __LINE__);
  partkv_batch_destroy(batch);

  /* A Merge of a missing row after an insert: NotFound at operation 1. */
  batch = inserts("q", 0, 1);
  e = pk_entity("q", "missing");
  partkv_batch_add(batch, PARTKV_OP_MERGE, e, NULL, 0);
  partkv_entity_destroy(e);
  check_batch_fails(table, batch, PARTKV_NOT_FOUND, 1, NULL, __LINE__);
  CHECK(get(table, "q", "000000") == NULL);
  /* A failed submit leaves no results. */
  CHECK_TEXT(partkv_batch_etag(batch, 0, &length), length, "");
  partkv_batch_destroy(batch);

  /* Exactly 100 is fine. */
  batch = inserts("q", 0, 100);
  CHECK_OK(partkv_table_submit(table, batch, NULL));
  partkv_batch_destroy(batch);
  e = get(table, "q", "000099");
  CHECK(e != NULL);
  partkv_entity_destroy(e);
  partkv_table_close(table);
  partkv_store_close(store);
}
