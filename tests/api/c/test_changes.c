/* The change feed and time to live (partkv/c_changes.h; partkv/changes.h): the options at creation
 * and in the table's facts, both modes with paging and tokens, a read from now, the feed's state,
 * waiting, the sweep, a position retention trimmed, the settings changed later, and the arguments
 * and inputs refused. */

#include "harness.h"

#define TEXT(s) s, strlen(s)

/* A store whose maintenance thread never sweeps: the tests sweep when they mean to. */
static partkv_store_t* open_quiet_store(void) {
  partkv_store_options_t* options = partkv_store_options_create();
  partkv_store_t* store;
  partkv_store_options_set_maintenance_interval_ms(options, 0);
  store = pk_open_store("store", options);
  partkv_store_options_destroy(options);
  return store;
}

/* Creates table `name` keeping a change feed with the limits given, and opens it. */
static partkv_table_t* feed_table(partkv_store_t* store, const char* name, int64_t retention,
                                  uint64_t max_bytes) {
  partkv_table_options_t* options = partkv_table_options_create();
  partkv_table_t* table;
  partkv_table_options_set_change_feed(options, 1, retention, max_bytes);
  table = pk_create_table(store, name, options);
  partkv_table_options_destroy(options);
  return table;
}

/* Writes entity (pk, rk) with Int32 n by `op` (PARTKV_OP_INSERT, _REPLACE or _MERGE). 1 on
 * success. */
static int write_n(partkv_table_t* table, partkv_op_t op, const char* pk, const char* rk, int n) {
  partkv_entity_t* e = pk_entity(pk, rk);
  partkv_status_t* s;
  partkv_entity_set_int32(e, TEXT("n"), n);
  s = op == PARTKV_OP_INSERT    ? partkv_table_insert(table, e, NULL)
      : op == PARTKV_OP_REPLACE ? partkv_table_replace(table, e, NULL, 0, NULL)
                                : partkv_table_merge(table, e, NULL, 0, NULL);
  partkv_entity_destroy(e);
  return pk_ok(s, __FILE__, __LINE__, "write_n");
}

/* The changes of a page as "op:pk/rk=n" joined by spaces (n only when the entity has it), into
 * `out` (appended). */
static void describe(const partkv_changes_page_t* page, char* out, size_t size) {
  size_t i, n = partkv_changes_page_count(page);
  for (i = 0; i < n; ++i) {
    partkv_change_t c;
    char item[128];
    int32_t value;
    if (!partkv_changes_page_get(page, i, &c)) {
      pk_fail(__FILE__, __LINE__, "partkv_changes_page_get in range");
      return;
    }
    value = pk_int32(c.entity, "n", -1);
    if (value >= 0) {
      snprintf(item, sizeof item, "%s%s:%s/%s=%d", out[0] ? " " : "", partkv_change_op_name(c.op),
               partkv_entity_partition_key(c.entity, NULL), partkv_entity_row_key(c.entity, NULL),
               (int)value);
    } else {
      snprintf(item, sizeof item, "%s%s:%s/%s", out[0] ? " " : "", partkv_change_op_name(c.op),
               partkv_entity_partition_key(c.entity, NULL), partkv_entity_row_key(c.entity, NULL));
    }
    strncat(out, item, size - strlen(out) - 1);
  }
}

/* Reads from `token` (length 0: the start) to the newest change in pages of `page_size`, in
 * `mode`, describing every change into `out`; the last token into `token` (of TOKEN_MAX bytes)
 * and the number of pages read. -1 on a failed read (recorded). */
#define TOKEN_MAX 1024
static int read_to_end(const partkv_table_t* table, partkv_changes_mode_t mode, uint32_t page_size,
                       char token[TOKEN_MAX], char* out, size_t size) {
  partkv_changes_query_t* query = partkv_changes_query_create();
  partkv_changes_page_t* page = partkv_changes_page_create();
  int pages = 0;
  out[0] = '\0';
  partkv_changes_query_set_mode(query, mode);
  partkv_changes_query_set_page_size(query, page_size);
  partkv_changes_query_set_continuation(query, token, strlen(token));
  for (;;) {
    size_t length = 0;
    const char* next;
    if (!pk_ok(partkv_table_read_changes(table, query, page), __FILE__, __LINE__, "read_to_end")) {
      pages = -1;
      break;
    }
    ++pages;
    if (partkv_changes_page_count(page) > page_size) pk_fail(__FILE__, __LINE__, "page too large");
    describe(page, out, size);
    next = partkv_changes_page_continuation(page, &length);
    if (length == 0 || length >= TOKEN_MAX) {
      pk_fail(__FILE__, __LINE__, "a page's continuation is set and fits");
      pages = -1;
      break;
    }
    memcpy(token, next, length);
    token[length] = '\0';
    partkv_changes_query_set_continuation(query, next, length);
    if (partkv_changes_page_caught_up(page)) break;
    if (pages > 1000) {
      pk_fail(__FILE__, __LINE__, "the feed never caught up");
      break;
    }
  }
  partkv_changes_page_destroy(page);
  partkv_changes_query_destroy(query);
  return pages;
}

void test_ChangeFeedModes(void) {
  partkv_store_t* store = open_quiet_store();
  partkv_table_t* table;
  partkv_table_info_t* info;
  partkv_changes_query_t* query;
  partkv_changes_page_t* page;
  partkv_change_t change;
  char token[TOKEN_MAX] = "";
  char seen[1024];
  int64_t retention = -1;
  uint64_t max_bytes = 1;
  size_t length = 0;
  const char* text;
  REQUIRE(store != NULL);
  table = feed_table(store, "Items", 3600, 0);
  REQUIRE(table != NULL);
  info = partkv_table_info(table);
  CHECK_INT(partkv_table_info_change_feed(info, &retention, &max_bytes), 1);
  CHECK_INT(retention, 3600);
  CHECK_INT(max_bytes, 0);
  CHECK_INT(partkv_table_info_change_feed(info, NULL, NULL), 1);
  CHECK_INT(partkv_table_info_ttl(info), PARTKV_TTL_OFF);
  partkv_table_info_destroy(info);

  REQUIRE(write_n(table, PARTKV_OP_INSERT, "p", "a", 1));
  REQUIRE(write_n(table, PARTKV_OP_INSERT, "p", "b", 2));
  REQUIRE(write_n(table, PARTKV_OP_REPLACE, "p", "a", 3));
  REQUIRE(write_n(table, PARTKV_OP_MERGE, "p", "b", 4));
  REQUIRE_OK(partkv_table_delete(table, TEXT("p"), TEXT("b"), NULL, 0, NULL));

  /* Every change, in order, two a page. */
  CHECK_INT(read_to_end(table, PARTKV_CHANGES_ALL, 2, token, seen, sizeof seen), 3);
  CHECK_STR(seen, "insert:p/a=1 insert:p/b=2 replace:p/a=3 merge:p/b=4 delete:p/b");
  /* The newest version of each entity, the deleted one left out. */
  token[0] = '\0';
  CHECK_INT(read_to_end(table, PARTKV_CHANGES_LATEST, 1000, token, seen, sizeof seen), 1);
  CHECK_STR(seen, "replace:p/a=3");
  /* From the last token: nothing until something changes, then only that. */
  CHECK_INT(read_to_end(table, PARTKV_CHANGES_ALL, 1000, token, seen, sizeof seen), 1);
  CHECK_STR(seen, "");
  REQUIRE(write_n(table, PARTKV_OP_INSERT, "q", "c", 5));
  CHECK_INT(read_to_end(table, PARTKV_CHANGES_ALL, 1000, token, seen, sizeof seen), 1);
  CHECK_STR(seen, "insert:q/c=5");

  /* One change's fields. */
  query = partkv_changes_query_create();
  page = partkv_changes_page_create();
  partkv_changes_query_set_mode(query, PARTKV_CHANGES_ALL);
  partkv_changes_query_set_page_size(query, 1);
  REQUIRE_OK(partkv_table_read_changes(table, query, page));
  CHECK_INT(partkv_changes_page_count(page), 1);
  CHECK_INT(partkv_changes_page_caught_up(page), 0);
  memset(&change, 0, sizeof change);
  CHECK_INT(partkv_changes_page_get(page, 0, &change), 1);
  CHECK_INT(change.op, PARTKV_CHANGE_INSERT);
  CHECK(change.time_ticks > PARTKV_UNIX_EPOCH_TICKS);
  CHECK(change.etag_length > 0 && strlen(change.etag) == change.etag_length);
  CHECK(change.entity != NULL);
  text = partkv_entity_etag(change.entity, &length);
  CHECK_TEXT(text, length, change.etag);
  CHECK_INT(partkv_entity_timestamp(change.entity), change.time_ticks);
  CHECK_INT(partkv_changes_page_get(page, 1, &change), 0); /* out of range */
  CHECK_INT(partkv_changes_page_get(page, 0, NULL), 0);
  {
    uint64_t first = change.seq;
    text = partkv_changes_page_continuation(page, &length);
    partkv_changes_query_set_continuation(query, text, length);
    REQUIRE_OK(partkv_table_read_changes(table, query, page));
    CHECK_INT(partkv_changes_page_get(page, 0, &change), 1);
    CHECK(change.seq > first);
    CHECK_INT(change.op, PARTKV_CHANGE_INSERT);
  }

  /* From now: an empty first page with its token; later changes from there. */
  partkv_changes_query_set_continuation(query, NULL, 0);
  partkv_changes_query_set_start(query, PARTKV_CHANGES_FROM_NOW);
  partkv_changes_query_set_page_size(query, 1000);
  REQUIRE_OK(partkv_table_read_changes(table, query, page));
  CHECK_INT(partkv_changes_page_count(page), 0);
  CHECK_INT(partkv_changes_page_caught_up(page), 1);
  text = partkv_changes_page_continuation(page, &length);
  REQUIRE(length > 0 && length < TOKEN_MAX);
  memcpy(token, text, length);
  token[length] = '\0';
  REQUIRE(write_n(table, PARTKV_OP_INSERT, "q", "d", 6));
  CHECK_INT(read_to_end(table, PARTKV_CHANGES_LATEST, 1000, token, seen, sizeof seen), 1);
  CHECK_STR(seen, "insert:q/d=6");
  /* Back to the beginning. */
  partkv_changes_query_set_start(query, PARTKV_CHANGES_FROM_BEGINNING);
  partkv_changes_query_set_mode(query, PARTKV_CHANGES_LATEST);
  REQUIRE_OK(partkv_table_read_changes(table, query, page));
  CHECK_INT(partkv_changes_page_count(page), 3); /* p/a, q/c, q/d */

  CHECK_STR(partkv_change_op_name(PARTKV_CHANGE_INSERT), "insert");
  CHECK_STR(partkv_change_op_name(PARTKV_CHANGE_REPLACE), "replace");
  CHECK_STR(partkv_change_op_name(PARTKV_CHANGE_MERGE), "merge");
  CHECK_STR(partkv_change_op_name(PARTKV_CHANGE_DELETE), "delete");
  CHECK_STR(partkv_change_op_name(PARTKV_CHANGE_EXPIRE), "expire");
  CHECK_STR(partkv_change_op_name((partkv_change_op_t)0), "");
  CHECK_STR(partkv_change_op_name((partkv_change_op_t)99), "");

  partkv_changes_page_destroy(page);
  partkv_changes_query_destroy(query);
  partkv_table_close(table);
  partkv_store_close(store);
}

void test_ChangeFeedStateAwaitSweep(void) {
  partkv_store_t* store = open_quiet_store();
  partkv_table_t* table;
  partkv_table_census_t* census = NULL;
  partkv_change_feed_state_t state;
  partkv_sweep_report_t report;
  char* first = NULL;
  size_t first_length = 0;
  int ready = -1;
  REQUIRE(store != NULL);
  CHECK_INT(partkv_store_has_capability(store, TEXT("change-feed")), 1);
  CHECK_INT(partkv_store_has_capability(store, TEXT("time-to-live")), 1);
  table = feed_table(store, "Items", 0, 1 << 20);
  REQUIRE(table != NULL);

  memset(&state, 0, sizeof state);
  REQUIRE_OK(partkv_table_feed_state(table, &state, &first, &first_length));
  CHECK_INT(state.enabled, 1);
  CHECK_INT(state.retention_seconds, 0);
  CHECK_INT(state.max_bytes, 1 << 20);
  CHECK_INT(state.next_seq, state.first_seq); /* empty */
  REQUIRE(first != NULL);
  CHECK(first_length > 0 && strlen(first) == first_length);

  /* Nothing at the token yet: no wait with 0, a short one times out. */
  REQUIRE_OK(partkv_table_await_changes(table, first, first_length, 0, &ready));
  CHECK_INT(ready, 0);
  ready = -1;
  REQUIRE_OK(partkv_table_await_changes(table, first, first_length, 20, &ready));
  CHECK_INT(ready, 0);
  REQUIRE(write_n(table, PARTKV_OP_INSERT, "p", "a", 1));
  REQUIRE_OK(partkv_table_await_changes(table, first, first_length, 0, &ready));
  CHECK_INT(ready, 1);
  ready = -1;
  REQUIRE_OK(partkv_table_await_changes(table, first, first_length, 60000, &ready));
  CHECK_INT(ready, 1); /* at once: the change is there */

  REQUIRE_OK(partkv_table_feed_state(table, &state, NULL, NULL));
  CHECK_INT(state.next_seq, state.first_seq + 1);
  CHECK(state.bytes > 0);

  /* Nothing to trim or expire. */
  report.feed_entries_trimmed = report.expiries_recorded = 99;
  REQUIRE_OK(partkv_table_sweep(table, &report));
  CHECK_INT(report.feed_entries_trimmed, 0);
  CHECK_INT(report.expiries_recorded, 0);

  REQUIRE_OK(partkv_table_census(table, 10, 0, &census));
  CHECK_INT(partkv_table_census_expired_entities(census), 0);
  CHECK_INT(partkv_table_census_expired_entities(NULL), 0);
  partkv_table_census_destroy(census);

  partkv_free(first);
  partkv_table_close(table);
  partkv_store_close(store);
}

void test_ChangeFeedTrimmed(void) {
  partkv_store_t* store = open_quiet_store();
  partkv_table_t* table;
  partkv_change_feed_state_t before, after;
  partkv_sweep_report_t report;
  partkv_changes_query_t* query;
  partkv_changes_page_t* page;
  partkv_status_t* s;
  char* old_token = NULL;
  char* new_token = NULL;
  size_t old_length = 0, new_length = 0, length = 0;
  char expected[64];
  const char* message;
  int i;
  REQUIRE(store != NULL);
  /* A feed kept within a byte: the sweep trims all but the newest entries it must keep. */
  table = feed_table(store, "Items", 0, 1);
  REQUIRE(table != NULL);
  for (i = 0; i < 50; ++i) {
    char rk[16];
    pk_row_key(rk, i);
    REQUIRE(write_n(table, PARTKV_OP_INSERT, "p", rk, i));
  }
  REQUIRE_OK(partkv_store_flush(store));
  REQUIRE_OK(partkv_table_feed_state(table, &before, &old_token, &old_length));
  REQUIRE_OK(partkv_table_sweep(table, &report));
  CHECK(report.feed_entries_trimmed > 0);
  REQUIRE_OK(partkv_table_feed_state(table, &after, &new_token, &new_length));
  CHECK_INT(after.first_seq, before.first_seq + report.feed_entries_trimmed);

  query = partkv_changes_query_create();
  page = partkv_changes_page_create();
  partkv_changes_query_set_continuation(query, old_token, old_length);
  s = partkv_table_read_changes(table, query, page);
  REQUIRE(s != NULL);
  CHECK_INT(partkv_status_code(s), PARTKV_TRIMMED);
  message = partkv_status_message(s, &length);
  snprintf(expected, sizeof expected, "oldest position kept is %llu",
           (unsigned long long)after.first_seq);
  CHECK_HAS(message, length, expected);
  CHECK_STR(partkv_code_name(PARTKV_TRIMMED), "Trimmed");
  partkv_status_destroy(s);
  CHECK_INT(partkv_changes_page_count(page), 0);
  CHECK_CODE(partkv_table_await_changes(table, old_token, old_length, 0, &i), PARTKV_TRIMMED,
             "oldest position kept");
  /* The first token of the state reads on: what retention kept (within a byte: nothing or
   * little), then what came after. */
  REQUIRE(write_n(table, PARTKV_OP_INSERT, "q", "new", 50));
  partkv_changes_query_set_continuation(query, new_token, new_length);
  partkv_changes_query_set_mode(query, PARTKV_CHANGES_ALL);
  REQUIRE_OK(partkv_table_read_changes(table, query, page));
  REQUIRE_INT(partkv_changes_page_count(page), after.next_seq - after.first_seq + 1);
  CHECK(partkv_changes_page_count(page) < 51);
  {
    partkv_change_t last;
    REQUIRE(partkv_changes_page_get(page, partkv_changes_page_count(page) - 1, &last));
    CHECK_INT(pk_int32(last.entity, "n", -1), 50);
  }

  partkv_free(old_token);
  partkv_free(new_token);
  partkv_changes_page_destroy(page);
  partkv_changes_query_destroy(query);
  partkv_table_close(table);
  partkv_store_close(store);
}

void test_ChangeFeedSettings(void) {
  partkv_store_t* store = open_quiet_store();
  partkv_table_t* table;
  partkv_table_info_t* info;
  partkv_table_settings_t* settings;
  partkv_table_options_t* options;
  partkv_changes_query_t* query = partkv_changes_query_create();
  partkv_changes_page_t* page = partkv_changes_page_create();
  partkv_change_feed_state_t state;
  partkv_entity_t* e;
  partkv_entity_t* got = NULL;
  int64_t retention = 0;
  uint64_t max_bytes = 0;
  int ready = 0;
  REQUIRE(store != NULL);
  table = pk_create_table(store, "Plain", NULL);
  REQUIRE(table != NULL);

  /* No feed: every read says how to turn it on. */
  CHECK_CODE(partkv_table_read_changes(table, query, page), PARTKV_INVALID_ARGUMENT, "feed");
  CHECK_CODE(partkv_table_feed_state(table, &state, NULL, NULL), PARTKV_INVALID_ARGUMENT, "feed");
  CHECK_CODE(partkv_table_await_changes(table, NULL, 0, 0, &ready), PARTKV_INVALID_ARGUMENT,
             "feed");
  info = partkv_table_info(table);
  CHECK_INT(partkv_table_info_change_feed(info, &retention, &max_bytes), 0);
  partkv_table_info_destroy(info);

  /* On, with a retention; then only the size limit changed: the rest stays. */
  settings = partkv_table_settings_create();
  partkv_table_settings_set_change_feed_enabled(settings, 1);
  partkv_table_settings_set_feed_retention(settings, 600);
  REQUIRE_OK(partkv_store_set_table_options(store, TEXT("Plain"), settings));
  partkv_table_settings_destroy(settings);
  settings = partkv_table_settings_create();
  partkv_table_settings_set_feed_max_bytes(settings, 1 << 20);
  partkv_table_settings_set_ttl(settings, PARTKV_TTL_NO_DEFAULT);
  REQUIRE_OK(partkv_store_set_table_options(store, TEXT("Plain"), settings));
  partkv_table_settings_destroy(settings);
  info = partkv_table_info(table);
  CHECK_INT(partkv_table_info_change_feed(info, &retention, &max_bytes), 1);
  CHECK_INT(retention, 600);
  CHECK_INT(max_bytes, 1 << 20);
  CHECK_INT(partkv_table_info_ttl(info), PARTKV_TTL_NO_DEFAULT);
  partkv_table_info_destroy(info);
  REQUIRE_OK(partkv_table_read_changes(table, query, page));
  CHECK_INT(partkv_changes_page_count(page), 0);

  /* An entity whose "ttl" is -1 never expires, even under a table default of one second. */
  settings = partkv_table_settings_create();
  partkv_table_settings_set_ttl(settings, 1);
  REQUIRE_OK(partkv_store_set_table_options(store, TEXT("Plain"), settings));
  partkv_table_settings_destroy(settings);
  e = pk_entity("p", "forever");
  partkv_entity_set_int32(e, TEXT("ttl"), -1);
  REQUIRE_OK(partkv_table_insert(table, e, NULL));
  partkv_entity_destroy(e);
  REQUIRE_OK(partkv_table_get(table, TEXT("p"), TEXT("forever"), &got));
  CHECK_INT(pk_int32(got, "ttl", 0), -1);
  partkv_entity_destroy(got);

  /* Off again: nothing to read. Empty settings change nothing. */
  settings = partkv_table_settings_create();
  REQUIRE_OK(partkv_store_set_table_options(store, TEXT("Plain"), settings));
  partkv_table_settings_set_change_feed_enabled(settings, 0);
  REQUIRE_OK(partkv_store_set_table_options(store, TEXT("Plain"), settings));
  CHECK_CODE(partkv_table_read_changes(table, query, page), PARTKV_INVALID_ARGUMENT, "feed");

  /* Refused settings. */
  partkv_table_settings_destroy(settings);
  settings = partkv_table_settings_create();
  partkv_table_settings_set_ttl(settings, -2);
  CHECK_CODE(partkv_store_set_table_options(store, TEXT("Plain"), settings),
             PARTKV_INVALID_ARGUMENT, NULL);
  partkv_table_settings_destroy(settings);
  settings = partkv_table_settings_create();
  partkv_table_settings_set_feed_retention(settings, -1);
  CHECK_CODE(partkv_store_set_table_options(store, TEXT("Plain"), settings),
             PARTKV_INVALID_ARGUMENT, NULL);
  partkv_table_settings_set_change_feed_enabled(settings, 1);
  partkv_table_settings_set_feed_max_bytes(settings, 0);
  CHECK_CODE(partkv_store_set_table_options(store, TEXT("Plain"), settings),
             PARTKV_INVALID_ARGUMENT, NULL);
  partkv_table_settings_destroy(settings);
  settings = partkv_table_settings_create();
  partkv_table_settings_set_ttl(settings, 5);
  CHECK_CODE(partkv_store_set_table_options(store, TEXT("Missing"), settings), PARTKV_NOT_FOUND,
             NULL);
  /* Only part of the feed's options: the table's others are read first, and it has none. */
  partkv_table_settings_set_feed_max_bytes(settings, 10);
  CHECK_CODE(partkv_store_set_table_options(store, TEXT("Missing"), settings), PARTKV_NOT_FOUND,
             "Missing");
  partkv_table_settings_destroy(settings);

  /* Refused options at creation; a time to live given at creation is in the facts. */
  options = partkv_table_options_create();
  partkv_table_options_set_ttl(options, -7);
  CHECK_CODE(partkv_store_create_table(store, TEXT("Bad"), options), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_table_options_set_ttl(options, 3600);
  partkv_table_options_set_change_feed(options, 1, -5, 0);
  CHECK_CODE(partkv_store_create_table(store, TEXT("Bad"), options), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_table_options_set_change_feed(options, 0, 0, 0);
  partkv_table_close(table);
  table = pk_create_table(store, "Expiring", options);
  partkv_table_options_destroy(options);
  REQUIRE(table != NULL);
  info = partkv_table_info(table);
  CHECK_INT(partkv_table_info_ttl(info), 3600);
  CHECK_INT(partkv_table_info_change_feed(info, NULL, NULL), 0);
  partkv_table_info_destroy(info);

  partkv_changes_page_destroy(page);
  partkv_changes_query_destroy(query);
  partkv_table_close(table);
  partkv_store_close(store);
}

void test_ChangeFeedBadInput(void) {
  partkv_store_t* store = open_quiet_store();
  partkv_table_t* table;
  partkv_table_settings_t* settings = partkv_table_settings_create();
  partkv_changes_query_t* query = partkv_changes_query_create();
  partkv_changes_page_t* page = partkv_changes_page_create();
  partkv_change_feed_state_t state;
  partkv_sweep_report_t report;
  partkv_change_t change;
  size_t length = 99;
  int ready = 0;
  REQUIRE(store != NULL);
  table = feed_table(store, "Items", 0, 0);
  REQUIRE(table != NULL);

  /* NULL handles and out parameters. */
  CHECK_CODE(partkv_store_set_table_options(NULL, TEXT("Items"), settings), PARTKV_INVALID_ARGUMENT,
             "store");
  CHECK_CODE(partkv_store_set_table_options(store, TEXT("Items"), NULL), PARTKV_INVALID_ARGUMENT,
             "settings");
  CHECK_CODE(partkv_table_read_changes(NULL, query, page), PARTKV_INVALID_ARGUMENT, "table");
  CHECK_CODE(partkv_table_read_changes(table, NULL, page), PARTKV_INVALID_ARGUMENT, "query");
  CHECK_CODE(partkv_table_read_changes(table, query, NULL), PARTKV_INVALID_ARGUMENT, "page");
  CHECK_CODE(partkv_table_feed_state(NULL, &state, NULL, NULL), PARTKV_INVALID_ARGUMENT, "table");
  CHECK_CODE(partkv_table_feed_state(table, NULL, NULL, NULL), PARTKV_INVALID_ARGUMENT, "state");
  CHECK_CODE(partkv_table_await_changes(NULL, NULL, 0, 0, &ready), PARTKV_INVALID_ARGUMENT,
             "table");
  CHECK_CODE(partkv_table_await_changes(table, NULL, 0, 0, NULL), PARTKV_INVALID_ARGUMENT, "ready");
  CHECK_CODE(partkv_table_sweep(NULL, &report), PARTKV_INVALID_ARGUMENT, "table");
  CHECK_CODE(partkv_table_sweep(table, NULL), PARTKV_INVALID_ARGUMENT, "report");

  /* Accessors and setters of NULL handles do nothing and answer 0 or "". */
  CHECK_INT(partkv_changes_page_count(NULL), 0);
  CHECK_INT(partkv_changes_page_get(NULL, 0, &change), 0);
  CHECK_INT(partkv_changes_page_caught_up(NULL), 0);
  CHECK_TEXT(partkv_changes_page_continuation(NULL, &length), length, "");
  CHECK_INT(partkv_table_info_change_feed(NULL, NULL, NULL), 0);
  CHECK_INT(partkv_table_info_ttl(NULL), PARTKV_TTL_OFF);
  partkv_changes_query_set_continuation(NULL, TEXT("x"));
  partkv_changes_query_set_start(NULL, PARTKV_CHANGES_FROM_NOW);
  partkv_changes_query_set_mode(NULL, PARTKV_CHANGES_ALL);
  partkv_changes_query_set_page_size(NULL, 10);
  partkv_table_settings_set_change_feed_enabled(NULL, 1);
  partkv_table_settings_set_feed_retention(NULL, 1);
  partkv_table_settings_set_feed_max_bytes(NULL, 1);
  partkv_table_settings_set_ttl(NULL, 1);
  partkv_table_options_set_change_feed(NULL, 1, 0, 0);
  partkv_table_options_set_ttl(NULL, 1);
  partkv_store_options_set_maintenance_interval_ms(NULL, 1);
  partkv_changes_query_destroy(NULL);
  partkv_changes_page_destroy(NULL);
  partkv_table_settings_destroy(NULL);

  /* Page sizes outside 1..1000. */
  partkv_changes_query_set_page_size(query, 0);
  CHECK_CODE(partkv_table_read_changes(table, query, page), PARTKV_INVALID_ARGUMENT, "page size");
  partkv_changes_query_set_page_size(query, 1001);
  CHECK_CODE(partkv_table_read_changes(table, query, page), PARTKV_INVALID_ARGUMENT, "page size");
  partkv_changes_query_set_page_size(query, 1000);

  /* Start and mode values outside the enums: refused by the read, naming which. */
  partkv_changes_query_set_start(query, (partkv_changes_start_t)7);
  CHECK_CODE(partkv_table_read_changes(table, query, page), PARTKV_INVALID_ARGUMENT, "start: 7");
  partkv_changes_query_set_start(query, PARTKV_CHANGES_FROM_BEGINNING);
  partkv_changes_query_set_mode(query, (partkv_changes_mode_t)-1);
  CHECK_CODE(partkv_table_read_changes(table, query, page), PARTKV_INVALID_ARGUMENT, "mode: -1");
  partkv_changes_query_set_mode(query, PARTKV_CHANGES_ALL);
  REQUIRE_OK(partkv_table_read_changes(table, query, page));

  /* A malformed token; a negative timeout. */
  partkv_changes_query_set_continuation(query, TEXT("not a token"));
  CHECK_CODE(partkv_table_read_changes(table, query, page), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_await_changes(table, TEXT("not a token"), 0, &ready),
             PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_table_await_changes(table, NULL, 0, -1, &ready), PARTKV_INVALID_ARGUMENT,
             "timeout_ms");

  partkv_changes_page_destroy(page);
  partkv_changes_query_destroy(query);
  partkv_table_settings_destroy(settings);
  partkv_table_close(table);
  partkv_store_close(store);
}
