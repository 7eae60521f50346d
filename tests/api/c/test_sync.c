/* Syncing a table (partkv/c_sync.h; partkv/sync.h) between local stores: two sites, "a" and "b",
 * each a store whose table keeps a change feed, and a third store, "remote", in the remote's
 * place. A push then a pull to the other site with the writes' origins in the feeds, progress, a
 * second sync of the pair refused while the first runs; the conflict policies through the
 * conflict callback, a sync that stops and the next one that carries on; the options and
 * arguments refused. */

#include "harness.h"

#define TEXT(s) s, strlen(s)

/* Creates table `name` keeping a change feed (no limits), and opens it. */
static partkv_table_t* feed_table(partkv_store_t* store, const char* name) {
  partkv_table_options_t* options = partkv_table_options_create();
  partkv_table_t* table;
  partkv_table_options_set_change_feed(options, 1, 0, 0);
  table = pk_create_table(store, name, options);
  partkv_table_options_destroy(options);
  return table;
}

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

/* Replaces (or inserts) entity (pk, rk) with Int32 n. 1 on success. */
static int put_n(partkv_table_t* table, const char* pk, const char* rk, int n) {
  partkv_entity_t* e = pk_entity(pk, rk);
  partkv_status_t* s;
  partkv_entity_set_int32(e, TEXT("n"), n);
  s = partkv_table_insert_or_replace(table, e, NULL);
  partkv_entity_destroy(e);
  return pk_ok(s, __FILE__, __LINE__, "put_n");
}

/* The Int32 n of entity (pk, rk); -1 when it is missing (a failed read other than NotFound is
 * recorded). */
static int n_of(const partkv_table_t* table, const char* pk, const char* rk) {
  partkv_entity_t* e = NULL;
  partkv_status_t* s = partkv_table_get(table, TEXT(pk), TEXT(rk), &e);
  int n;
  if (s != NULL) {
    if (partkv_status_code(s) == PARTKV_NOT_FOUND) {
      partkv_status_destroy(s);
    } else {
      (void)pk_ok(s, __FILE__, __LINE__, "n_of");
    }
    return -1;
  }
  n = pk_int32(e, "n", -1);
  partkv_entity_destroy(e);
  return n;
}

/* Counts the changes of the table's whole feed by origin. 1 when the feed was read. */
static int count_origins(const partkv_table_t* table, int* application, int* sync) {
  partkv_changes_query_t* query = partkv_changes_query_create();
  partkv_changes_page_t* page = partkv_changes_page_create();
  int good = 1;
  size_t i, length = 0;
  *application = *sync = 0;
  partkv_changes_query_set_mode(query, PARTKV_CHANGES_ALL);
  for (;;) {
    const char* token;
    if (!pk_ok(partkv_table_read_changes(table, query, page), __FILE__, __LINE__,
               "count_origins")) {
      good = 0;
      break;
    }
    for (i = 0; i < partkv_changes_page_count(page); ++i) {
      partkv_write_origin_t origin = partkv_changes_page_origin(page, i);
      if (origin == PARTKV_ORIGIN_SYNC) {
        ++*sync;
      } else if (origin == PARTKV_ORIGIN_APPLICATION) {
        ++*application;
      } else {
        pk_fail(__FILE__, __LINE__, "an origin of the enum's");
      }
    }
    if (partkv_changes_page_caught_up(page)) break;
    token = partkv_changes_page_continuation(page, &length);
    partkv_changes_query_set_continuation(query, token, length);
  }
  partkv_changes_page_destroy(page);
  partkv_changes_query_destroy(query);
  return good;
}

/* Syncs table "Items" of `site` with "Items" of `remote`; the sync must start and finish. */
static int synced(partkv_store_t* site, partkv_store_t* remote,
                  const partkv_sync_options_t* options, partkv_sync_report_t* report) {
  partkv_status_t* stopped = NULL;
  memset(report, 0xab, sizeof *report);
  if (!pk_ok(
          partkv_sync_table(site, TEXT("Items"), remote, TEXT("Items"), options, report, &stopped),
          __FILE__, __LINE__, "partkv_sync_table")) {
    return 0;
  }
  return pk_ok(stopped, __FILE__, __LINE__, "the sync finished");
}

/* What the progress callback saw; on its first call it starts a second sync of the same pair,
 * which must be refused with PARTKV_BUSY while the first runs. */
typedef struct progress_seen_t {
  int calls;
  int push_phases;
  int pull_phases;
  uint64_t most_pushed;
  uint64_t most_pulled;
  partkv_store_t* site;
  partkv_store_t* remote;
  int second_code; /* the second sync's code, -1 before */
} progress_seen_t;

static void on_progress(const partkv_sync_progress_t* progress, void* user_data) {
  progress_seen_t* seen = (progress_seen_t*)user_data;
  ++seen->calls;
  if (strcmp(progress->phase, "push") == 0) ++seen->push_phases;
  if (strcmp(progress->phase, "pull") == 0) ++seen->pull_phases;
  if (progress->pushed > seen->most_pushed) seen->most_pushed = progress->pushed;
  if (progress->pulled > seen->most_pulled) seen->most_pulled = progress->pulled;
  if (seen->second_code == -1 && seen->site != NULL) {
    partkv_sync_report_t report;
    partkv_status_t* stopped = NULL;
    partkv_status_t* s = partkv_sync_table(seen->site, TEXT("Items"), seen->remote, TEXT("Items"),
                                           NULL, &report, &stopped);
    seen->second_code = (int)partkv_status_code(s);
    if (s != NULL) {
      size_t length = 0;
      const char* message = partkv_status_message(s, &length);
      CHECK_HAS(message, length, "already syncing");
    }
    partkv_status_destroy(s);
    partkv_status_destroy(stopped);
  }
}

/* Site a's 40 entities pushed to the remote, then pulled to site b: each site's feed says who
 * wrote what (the application at a; the sync at b), b sends nothing back, a sync with nothing to
 * do writes nothing; progress, and the second sync refused from inside the first. */
void test_SyncPushThenPull(void) {
  partkv_store_t* a = pk_open_store("a", NULL);
  partkv_store_t* b = pk_open_store("b", NULL);
  partkv_store_t* remote = pk_open_store("remote", NULL);
  partkv_sync_options_t* options = partkv_sync_options_create();
  partkv_sync_report_t report;
  progress_seen_t seen;
  partkv_table_t* at_a;
  partkv_table_t* at_b;
  partkv_table_t* at_remote;
  int application = 0, sync = 0;
  REQUIRE(a != NULL && b != NULL && remote != NULL);
  at_a = feed_table(a, "Items");
  at_b = feed_table(b, "Items");
  at_remote = pk_create_table(remote, "Items", NULL); /* the remote keeps no feed */
  REQUIRE(at_a != NULL && at_b != NULL && at_remote != NULL);
  REQUIRE(pk_fill(at_a, "p", 40));

  /* a's first sync: a seed (the whole table), one push, and progress along the way. */
  memset(&seen, 0, sizeof seen);
  seen.site = a;
  seen.remote = remote;
  seen.second_code = -1;
  partkv_sync_options_set_progress(options, on_progress, &seen);
  partkv_sync_options_set_direction(options, PARTKV_SYNC_PUSH);
  partkv_sync_options_set_max_batches_in_flight(options, 2);
  REQUIRE(synced(a, remote, options, &report));
  CHECK_INT(report.seeded, 1);
  CHECK_INT(report.pushed, 40);
  CHECK_INT(report.pushed_deletes, 0);
  CHECK_INT(report.pulled, 0); /* push only */
  CHECK_INT(report.conflicts, 0);
  CHECK(report.remote_requests > 0);
  CHECK(report.elapsed_micros > 0);
  CHECK_INT(rows_of(at_remote), 40);
  CHECK_INT(n_of(at_remote, "p", "000017"), 17);
  CHECK(seen.calls >= 1 && seen.push_phases >= 1);
  CHECK_INT(seen.pull_phases, 0);
  CHECK_INT(seen.most_pushed, 40);
  CHECK_INT(seen.second_code, PARTKV_BUSY);

  /* b's first sync, both ways (the defaults): the 40 pulled, written by the sync. */
  REQUIRE(synced(b, remote, NULL, &report));
  CHECK_INT(report.pulled, 40);
  CHECK_INT(report.pushed, 0);
  CHECK_INT(report.conflicts, 0);
  CHECK_INT(rows_of(at_b), 40);
  CHECK_INT(n_of(at_b, "p", "000031"), 31);
  REQUIRE(count_origins(at_b, &application, &sync));
  CHECK_INT(sync, 40);
  CHECK_INT(application, 0);
  REQUIRE(count_origins(at_a, &application, &sync));
  CHECK_INT(application, 40);
  CHECK_INT(sync, 0);

  /* b's second sync sends none of the sync's writes back; a pull finds them all unchanged. */
  REQUIRE(synced(b, remote, NULL, &report));
  CHECK_INT(report.seeded, 0);
  CHECK_INT(report.pushed, 0);
  CHECK_INT(report.push_skipped, 40);
  CHECK_INT(report.pulled, 0);
  CHECK_INT(report.pull_unchanged, 40);

  /* A change at b reaches a; the application's write at b is marked so in b's feed. */
  REQUIRE(put_n(at_b, "p", "000005", 500));
  REQUIRE(synced(b, remote, NULL, &report));
  CHECK_INT(report.pushed, 1);
  CHECK_INT(n_of(at_remote, "p", "000005"), 500);
  REQUIRE(count_origins(at_b, &application, &sync));
  CHECK_INT(application, 1);
  CHECK_INT(sync, 40);
  memset(&seen, 0, sizeof seen);
  partkv_sync_options_set_direction(options, PARTKV_SYNC_PULL);
  REQUIRE(synced(a, remote, options, &report));
  CHECK_INT(report.pulled, 1);
  CHECK_INT(report.pushed, 0);
  CHECK_INT(n_of(at_a, "p", "000005"), 500);
  CHECK(seen.pull_phases >= 1);
  CHECK_INT(seen.push_phases, 0);
  CHECK_INT(seen.most_pulled, 1);

  /* Nothing to do: nothing written on either side. */
  partkv_sync_options_set_progress(options, NULL, NULL);
  partkv_sync_options_set_direction(options, PARTKV_SYNC_BOTH);
  REQUIRE(synced(a, remote, options, &report));
  CHECK_INT(report.pushed + report.pushed_deletes + report.pulled + report.pulled_deletes, 0);
  CHECK_INT(report.conflicts, 0);

  partkv_sync_options_destroy(options);
  partkv_sync_options_destroy(NULL);
  partkv_table_close(at_remote);
  partkv_table_close(at_b);
  partkv_table_close(at_a);
  partkv_store_close(remote);
  partkv_store_close(b);
  partkv_store_close(a);
}

/* What the conflict callback saw: the last conflict, copied. */
typedef struct conflicts_seen_t {
  int calls;
  char partition_key[16];
  char row_key[16];
  int local_n;  /* -1: no local version (deleted locally) */
  int remote_n; /* -1: no remote version (deleted there) */
  int local_won;
  int set_aside;
} conflicts_seen_t;

static void on_conflict(const partkv_sync_conflict_t* conflict, void* user_data) {
  conflicts_seen_t* seen = (conflicts_seen_t*)user_data;
  ++seen->calls;
  CHECK(conflict->partition_key_length < sizeof seen->partition_key);
  CHECK(conflict->row_key_length < sizeof seen->row_key);
  CHECK(strlen(conflict->partition_key) == conflict->partition_key_length);
  snprintf(seen->partition_key, sizeof seen->partition_key, "%s", conflict->partition_key);
  snprintf(seen->row_key, sizeof seen->row_key, "%s", conflict->row_key);
  seen->local_n = conflict->local == NULL ? -1 : pk_int32(conflict->local, "n", -2);
  seen->remote_n = conflict->remote == NULL ? -1 : pk_int32(conflict->remote, "n", -2);
  seen->local_won = conflict->local_won;
  seen->set_aside = conflict->set_aside;
}

/* The one entity of `table` is entity (p, x) with Int32 n, set aside as the local version: its
 * RowKey x@<time>#<n>, its SyncConflictSide "local". */
static void check_set_aside(const partkv_table_t* table, int n, int line) {
  partkv_page_t* page = partkv_page_create();
  partkv_query_t* query = partkv_query_create();
  const partkv_entity_t* e;
  size_t index = 0, length = 0;
  const char* text;
  if (!pk_ok(partkv_table_query(table, query, page), __FILE__, line, "query the conflicts")) {
    partkv_query_destroy(query);
    partkv_page_destroy(page);
    return;
  }
  if (partkv_page_count(page) != 1) {
    pk_fail_int(__FILE__, line, "one entity set aside", (long long)partkv_page_count(page), 1);
  } else {
    e = partkv_page_entity(page, 0);
    if (pk_int32(e, "n", -1) != n)
      pk_fail_int(__FILE__, line, "set aside n", pk_int32(e, "n", -1), n);
    text = partkv_entity_partition_key(e, &length);
    if (!pk_text_is(text, length, "p")) pk_fail_text(__FILE__, line, "its pk", text, length, "p");
    text = partkv_entity_row_key(e, &length);
    if (!pk_text_has(text, length, "x@"))
      pk_fail_text(__FILE__, line, "its rk", text, length, "x@...");
    if (!partkv_entity_find(e, TEXT("SyncConflictSide"), &index)) {
      pk_fail(__FILE__, line, "SyncConflictSide");
    } else {
      text = partkv_entity_property_string(e, index, &length);
      if (!pk_text_is(text, length, "local")) {
        pk_fail_text(__FILE__, line, "SyncConflictSide", text, length, "local");
      }
    }
  }
  partkv_query_destroy(query);
  partkv_page_destroy(page);
}

/* Three stores, "a" and "b" with table "Items" keeping a feed and "remote" with "Items" alone,
 * the entity (p, x) n=1 written at a and synced to b through the remote. */
typedef struct sites_t {
  partkv_store_t* a;
  partkv_store_t* b;
  partkv_store_t* remote;
  partkv_table_t* at_a;
  partkv_table_t* at_b;
  partkv_table_t* at_remote;
} sites_t;

static void open_sites(sites_t* s) {
  partkv_sync_report_t report;
  memset(s, 0, sizeof *s);
  s->a = pk_open_store("a", NULL);
  s->b = pk_open_store("b", NULL);
  s->remote = pk_open_store("remote", NULL);
  REQUIRE(s->a != NULL && s->b != NULL && s->remote != NULL);
  s->at_a = feed_table(s->a, "Items");
  s->at_b = feed_table(s->b, "Items");
  s->at_remote = pk_create_table(s->remote, "Items", NULL);
  REQUIRE(s->at_a != NULL && s->at_b != NULL && s->at_remote != NULL);
  REQUIRE(put_n(s->at_a, "p", "x", 1));
  REQUIRE(synced(s->a, s->remote, NULL, &report));
  REQUIRE(synced(s->b, s->remote, NULL, &report));
  REQUIRE_INT(n_of(s->at_b, "p", "x"), 1);
}

static void close_sites(sites_t* s) {
  partkv_table_close(s->at_remote);
  partkv_table_close(s->at_b);
  partkv_table_close(s->at_a);
  partkv_store_close(s->remote);
  partkv_store_close(s->b);
  partkv_store_close(s->a);
}

/* (p, x) changed at a to `at_a`, synced, and at b to `at_b` (not synced yet). */
static void change_both(sites_t* s, int at_a, int at_b) {
  partkv_sync_report_t report;
  REQUIRE(put_n(s->at_a, "p", "x", at_a));
  REQUIRE(synced(s->a, s->remote, NULL, &report));
  CHECK_INT(report.pushed, 1);
  REQUIRE(put_n(s->at_b, "p", "x", at_b));
}

/* "report" (the default): an entity changed on both sides keeps the remote version, and the
 * local one is set aside in the conflicts table, named "<Table>Conflicts" by default; through
 * the callback with both versions. */
void test_SyncConflictReport(void) {
  sites_t s;
  partkv_sync_options_t* options = partkv_sync_options_create();
  partkv_sync_report_t report;
  conflicts_seen_t seen;
  partkv_table_t* set_aside = NULL;
  STEP(open_sites(&s));
  memset(&seen, 0, sizeof seen);
  partkv_sync_options_set_conflict_callback(options, on_conflict, &seen);
  STEP(change_both(&s, 2, 3));
  REQUIRE(synced(s.b, s.remote, options, &report));
  CHECK_INT(report.conflicts, 1);
  CHECK_INT(report.remote_won, 1);
  CHECK_INT(report.local_won, 0);
  CHECK_INT(report.set_aside, 1);
  CHECK_INT(seen.calls, 1);
  CHECK_STR(seen.partition_key, "p");
  CHECK_STR(seen.row_key, "x");
  CHECK_INT(seen.local_n, 3);
  CHECK_INT(seen.remote_n, 2);
  CHECK_INT(seen.local_won, 0);
  CHECK_INT(seen.set_aside, 1);
  CHECK_INT(n_of(s.at_b, "p", "x"), 2);
  CHECK_INT(n_of(s.at_remote, "p", "x"), 2);
  CHECK_OK(partkv_store_open_table(s.b, TEXT("ItemsConflicts"), NULL, NULL, &set_aside));
  if (set_aside != NULL) check_set_aside(set_aside, 3, __LINE__);
  /* Resolved: the next sync finds nothing to do. */
  REQUIRE(synced(s.b, s.remote, options, &report));
  CHECK_INT(report.conflicts + report.pushed + report.pulled, 0);

  partkv_table_close(set_aside);
  partkv_sync_options_destroy(options);
  close_sites(&s);
}

/* A sync that stops (a conflict whose local version cannot be set aside: the conflicts table's
 * name is invalid) and the next that carries on, as "local-wins": the local version goes to the
 * remote. "last-writer" against a delete at the other site: a remote delete has no time, the
 * local change wins. "remote-wins" against a delete at the remote found by reconcile: deleted
 * locally. Each conflict through the callback with both versions, NULL for the deleted side;
 * without the callback conflicts are still counted. */
void test_SyncConflictPolicies(void) {
  sites_t s;
  partkv_sync_options_t* options = partkv_sync_options_create();
  partkv_sync_report_t report;
  partkv_status_t* stopped = NULL;
  conflicts_seen_t seen;
  STEP(open_sites(&s));
  memset(&seen, 0, sizeof seen);
  partkv_sync_options_set_conflict_callback(options, on_conflict, &seen);
  STEP(change_both(&s, 2, 3));

  /* "report" with a conflicts table that cannot be made: the sync starts, then stops. */
  partkv_sync_options_set_conflicts_table(options, TEXT("Bad-Name"));
  memset(&report, 0xab, sizeof report);
  REQUIRE_OK(
      partkv_sync_table(s.b, TEXT("Items"), s.remote, TEXT("Items"), options, &report, &stopped));
  REQUIRE(stopped != NULL);
  CHECK_CODE(stopped, PARTKV_INVALID_ARGUMENT, "Bad-Name");
  stopped = NULL;
  CHECK_INT(report.conflicts, 0);
  CHECK(report.remote_requests > 0); /* the report is filled */
  CHECK_INT(seen.calls, 0);
  CHECK_INT(n_of(s.at_b, "p", "x"), 3);
  CHECK_INT(n_of(s.at_remote, "p", "x"), 2);

  /* The next sync carries on, as "local-wins": b's version goes to the remote, conditioned on
   * the version seen there; nothing is set aside. */
  partkv_sync_options_set_conflicts_table(options, "", 0);
  partkv_sync_options_set_conflicts(options, PARTKV_CONFLICTS_LOCAL_WINS);
  REQUIRE(synced(s.b, s.remote, options, &report));
  CHECK_INT(report.conflicts, 1);
  CHECK_INT(report.local_won, 1);
  CHECK_INT(report.remote_won, 0);
  CHECK_INT(report.set_aside, 0);
  CHECK_INT(seen.calls, 1);
  CHECK_STR(seen.partition_key, "p");
  CHECK_STR(seen.row_key, "x");
  CHECK_INT(seen.local_n, 3);
  CHECK_INT(seen.remote_n, 2);
  CHECK_INT(seen.local_won, 1);
  CHECK_INT(seen.set_aside, 0);
  CHECK_INT(n_of(s.at_remote, "p", "x"), 3);
  REQUIRE(synced(s.a, s.remote, NULL, &report));
  CHECK_INT(report.pulled, 1);
  CHECK_INT(n_of(s.at_a, "p", "x"), 3);

  /* "last-writer" against a delete at a. */
  REQUIRE_OK(partkv_table_delete(s.at_a, TEXT("p"), TEXT("x"), NULL, 0, NULL));
  REQUIRE(synced(s.a, s.remote, NULL, &report));
  CHECK_INT(report.pushed_deletes, 1);
  CHECK_INT(n_of(s.at_remote, "p", "x"), -1);
  REQUIRE(put_n(s.at_b, "p", "x", 6));
  partkv_sync_options_set_conflicts(options, PARTKV_CONFLICTS_LAST_WRITER);
  REQUIRE(synced(s.b, s.remote, options, &report));
  CHECK_INT(report.conflicts, 1);
  CHECK_INT(report.local_won, 1);
  CHECK_INT(seen.calls, 2);
  CHECK_INT(seen.local_n, 6);
  CHECK_INT(seen.remote_n, -1); /* NULL: deleted there */
  CHECK_INT(seen.local_won, 1);
  CHECK_INT(n_of(s.at_remote, "p", "x"), 6);

  /* "remote-wins" against a delete at the remote, found by reconcile (pull only). */
  REQUIRE(synced(s.a, s.remote, NULL, &report));
  CHECK_INT(n_of(s.at_a, "p", "x"), 6);
  REQUIRE_OK(partkv_table_delete(s.at_remote, TEXT("p"), TEXT("x"), NULL, 0, NULL));
  REQUIRE(put_n(s.at_b, "p", "x", 8));
  partkv_sync_options_set_conflicts(options, PARTKV_CONFLICTS_REMOTE_WINS);
  partkv_sync_options_set_direction(options, PARTKV_SYNC_PULL);
  partkv_sync_options_set_reconcile(options, 1);
  partkv_sync_options_set_overlap_seconds(options, 0);
  REQUIRE(synced(s.b, s.remote, options, &report));
  CHECK_INT(report.remote_keys_listed, 0);
  CHECK_INT(report.conflicts, 1);
  CHECK_INT(report.remote_won, 1);
  CHECK_INT(report.pulled_deletes, 1);
  CHECK_INT(seen.calls, 3);
  CHECK_INT(seen.local_n, 8);
  CHECK_INT(seen.remote_n, -1);
  CHECK_INT(seen.local_won, 0);
  CHECK_INT(seen.set_aside, 0);
  CHECK_INT(n_of(s.at_b, "p", "x"), -1);

  /* The callback removed: conflicts are still counted (both sites inserted y). */
  partkv_sync_options_set_conflict_callback(options, NULL, NULL);
  partkv_sync_options_set_direction(options, PARTKV_SYNC_BOTH);
  partkv_sync_options_set_reconcile(options, 0);
  REQUIRE(put_n(s.at_a, "p", "y", 1));
  REQUIRE(synced(s.a, s.remote, NULL, &report));
  REQUIRE(put_n(s.at_b, "p", "y", 2));
  REQUIRE(synced(s.b, s.remote, options, &report));
  CHECK_INT(report.conflicts, 1);
  CHECK_INT(seen.calls, 3);
  CHECK_INT(n_of(s.at_b, "p", "y"), 1);

  partkv_sync_options_destroy(options);
  close_sites(&s);
}

/* Refused before anything is sent, the report untouched: each bad option (naming it), a table
 * without a feed, a missing table, the state table as the table; NULL arguments; the names of
 * the policies and origins; the setters and accessors of NULL. */
void test_SyncBadOptions(void) {
  partkv_store_t* a = pk_open_store("a", NULL);
  partkv_store_t* remote = pk_open_store("remote", NULL);
  partkv_sync_options_t* options = partkv_sync_options_create();
  partkv_sync_report_t report, untouched;
  partkv_status_t* stopped = NULL;
  partkv_conflict_policy_t policy = PARTKV_CONFLICTS_REPORT;
  partkv_table_t* at_a;
  partkv_table_t* plain;
  partkv_table_t* at_remote;
  REQUIRE(a != NULL && remote != NULL);
  at_a = feed_table(a, "Items");
  plain = pk_create_table(a, "Plain", NULL);
  at_remote = pk_create_table(remote, "Items", NULL);
  REQUIRE(at_a != NULL && plain != NULL && at_remote != NULL);
  REQUIRE(put_n(at_a, "p", "x", 1));
  memset(&untouched, 0x5a, sizeof untouched);
  report = untouched;

#define REFUSED(code, fragment)                                                               \
  CHECK_CODE(                                                                                 \
      partkv_sync_table(a, TEXT("Items"), remote, TEXT("Items"), options, &report, &stopped), \
      code, fragment)

  partkv_sync_options_set_direction(options, (partkv_sync_direction_t)7);
  REFUSED(PARTKV_INVALID_ARGUMENT, "direction 7");
  partkv_sync_options_set_direction(options, PARTKV_SYNC_PUSH); /* a valid one clears it */
  partkv_sync_options_set_conflicts(options, (partkv_conflict_policy_t)9);
  REFUSED(PARTKV_INVALID_ARGUMENT, "conflicts 9");
  partkv_sync_options_set_conflicts(options, PARTKV_CONFLICTS_REPORT);
  partkv_sync_options_set_overlap_seconds(options, -1);
  REFUSED(PARTKV_INVALID_ARGUMENT, "overlap");
  partkv_sync_options_set_overlap_seconds(options, 60);
  partkv_sync_options_set_max_batches_in_flight(options, 0);
  REFUSED(PARTKV_INVALID_ARGUMENT, "max_batches_in_flight");
  partkv_sync_options_set_max_batches_in_flight(options, 65);
  REFUSED(PARTKV_INVALID_ARGUMENT, "max_batches_in_flight");
  partkv_sync_options_set_max_batches_in_flight(options, 64);
  partkv_sync_options_set_state_table(options, "", 0);
  REFUSED(PARTKV_INVALID_ARGUMENT, "state_table");
  partkv_sync_options_set_state_table(options, TEXT("Items"));
  REFUSED(PARTKV_INVALID_ARGUMENT, "must not be the table");
  partkv_sync_options_set_state_table(options, TEXT("SyncState"));
  CHECK(memcmp(&report, &untouched, sizeof report) == 0);
  CHECK(stopped == NULL);
#undef REFUSED

  /* A local table keeping no feed; missing tables on either side. */
  CHECK_CODE(partkv_sync_table(a, TEXT("Plain"), remote, TEXT("Items"), options, &report, &stopped),
             PARTKV_INVALID_ARGUMENT, "change feed");
  CHECK_CODE(
      partkv_sync_table(a, TEXT("Missing"), remote, TEXT("Items"), options, &report, &stopped),
      PARTKV_NOT_FOUND, NULL);
  CHECK_CODE(
      partkv_sync_table(a, TEXT("Items"), remote, TEXT("Missing"), options, &report, &stopped),
      PARTKV_NOT_FOUND, NULL);
  CHECK(memcmp(&report, &untouched, sizeof report) == 0);
  CHECK_INT(rows_of(at_remote), 0); /* nothing was sent */

  /* NULL arguments. */
  CHECK_CODE(partkv_sync_table(NULL, TEXT("Items"), remote, TEXT("Items"), NULL, &report, &stopped),
             PARTKV_INVALID_ARGUMENT, "local");
  CHECK_CODE(partkv_sync_table(a, TEXT("Items"), NULL, TEXT("Items"), NULL, &report, &stopped),
             PARTKV_INVALID_ARGUMENT, "remote");
  CHECK_CODE(partkv_sync_table(a, TEXT("Items"), remote, TEXT("Items"), NULL, NULL, &stopped),
             PARTKV_INVALID_ARGUMENT, "report");
  CHECK_CODE(partkv_sync_table(a, TEXT("Items"), remote, TEXT("Items"), NULL, &report, NULL),
             PARTKV_INVALID_ARGUMENT, "stopped");
  CHECK(memcmp(&report, &untouched, sizeof report) == 0);

  /* With the options fixed, the sync runs (push only, its state in SyncState). */
  REQUIRE(synced(a, remote, options, &report));
  CHECK_INT(report.pushed, 1);
  CHECK_INT(rows_of(at_remote), 1);
  {
    partkv_table_t* state = NULL;
    CHECK_OK(partkv_store_open_table(a, TEXT("SyncState"), NULL, NULL, &state));
    CHECK(state != NULL && rows_of(state) >= 2); /* the checkpoint and a shadow */
    partkv_table_close(state);
  }

  /* Names. */
  CHECK_STR(partkv_conflict_policy_name(PARTKV_CONFLICTS_REMOTE_WINS), "remote-wins");
  CHECK_STR(partkv_conflict_policy_name(PARTKV_CONFLICTS_LOCAL_WINS), "local-wins");
  CHECK_STR(partkv_conflict_policy_name(PARTKV_CONFLICTS_LAST_WRITER), "last-writer");
  CHECK_STR(partkv_conflict_policy_name(PARTKV_CONFLICTS_REPORT), "report");
  CHECK_STR(partkv_conflict_policy_name((partkv_conflict_policy_t)4), "");
  CHECK_STR(partkv_conflict_policy_name((partkv_conflict_policy_t)-1), "");
  CHECK_INT(partkv_conflict_policy_parse(TEXT("last-writer"), &policy), 1);
  CHECK_INT(policy, PARTKV_CONFLICTS_LAST_WRITER);
  CHECK_INT(partkv_conflict_policy_parse(TEXT("remote-wins"), &policy), 1);
  CHECK_INT(policy, PARTKV_CONFLICTS_REMOTE_WINS);
  CHECK_INT(partkv_conflict_policy_parse("reportX", 6, &policy), 1); /* the length counts */
  CHECK_INT(policy, PARTKV_CONFLICTS_REPORT);
  CHECK_INT(partkv_conflict_policy_parse(TEXT("Report"), &policy), 0);
  CHECK_INT(partkv_conflict_policy_parse(NULL, 0, &policy), 0);
  CHECK_INT(policy, PARTKV_CONFLICTS_REPORT); /* untouched */
  CHECK_INT(partkv_conflict_policy_parse(TEXT("local-wins"), NULL), 1);
  CHECK_STR(partkv_write_origin_name(PARTKV_ORIGIN_APPLICATION), "application");
  CHECK_STR(partkv_write_origin_name(PARTKV_ORIGIN_SYNC), "sync");
  CHECK_STR(partkv_write_origin_name((partkv_write_origin_t)2), "");
  CHECK_STR(partkv_write_origin_name((partkv_write_origin_t)-1), "");

  /* NULL handles: setters do nothing, the origin of nothing is the application's. */
  partkv_sync_options_set_direction(NULL, PARTKV_SYNC_PULL);
  partkv_sync_options_set_conflicts(NULL, PARTKV_CONFLICTS_LOCAL_WINS);
  partkv_sync_options_set_overlap_seconds(NULL, 1);
  partkv_sync_options_set_reconcile(NULL, 1);
  partkv_sync_options_set_state_table(NULL, TEXT("X"));
  partkv_sync_options_set_conflicts_table(NULL, TEXT("X"));
  partkv_sync_options_set_max_batches_in_flight(NULL, 2);
  partkv_sync_options_set_conflict_callback(NULL, on_conflict, NULL);
  partkv_sync_options_set_progress(NULL, on_progress, NULL);
  CHECK_INT(partkv_changes_page_origin(NULL, 0), PARTKV_ORIGIN_APPLICATION);
  {
    partkv_changes_page_t* page = partkv_changes_page_create();
    CHECK_INT(partkv_changes_page_origin(page, 0), PARTKV_ORIGIN_APPLICATION); /* empty */
    partkv_changes_page_destroy(page);
  }

  partkv_sync_options_destroy(options);
  partkv_table_close(at_remote);
  partkv_table_close(plain);
  partkv_table_close(at_a);
  partkv_store_close(remote);
  partkv_store_close(a);
}
