/* Key strategies and filters (partkv/c.h "Key strategies", "Filters"; partkv/keys.h,
 * docs/keys.md; partkv/filter.h, docs/filter.md). */

#include <stdlib.h>

#include "harness.h"

static partkv_key_strategy_t* parse_strategy(const char* text) {
  partkv_key_strategy_t* s = NULL;
  if (!pk_ok(partkv_key_strategy_parse(text, strlen(text), &s), __FILE__, __LINE__, text)) {
    return NULL;
  }
  return s;
}

/* The canonical text of `typed` is `canonical`. */
static void check_canonical(const char* typed, const char* canonical) {
  partkv_key_strategy_t* s = parse_strategy(typed);
  size_t length = 0;
  char* text;
  if (s == NULL) return;
  text = partkv_key_strategy_to_string(s, &length);
  if (!pk_text_is(text, length, canonical)) {
    pk_fail_text(__FILE__, __LINE__, typed, text, length, canonical);
  }
  partkv_free(text);
  partkv_key_strategy_destroy(s);
}

void test_KeyStrategyParse(void) {
  partkv_key_strategy_t* s;
  partkv_key_strategy_t* untouched = (partkv_key_strategy_t*)&s; /* any non-NULL marker */
  const char with_tail[] = "md5-bits(id,4)))";

  /* docs/keys.md's table of typed and canonical forms. */
  check_canonical("concat(deviceId, date)", "concat(deviceId,date,sep=-)");
  check_canonical("concat(a,sep=)", "concat(a,sep=)");
  check_canonical("random-suffix(day, 400)", "random-suffix(day,400)");
  check_canonical("hash-suffix(day,OrderId,200)", "hash-suffix(day,OrderId,200,hash=xxh3)");
  check_canonical("md5-bits(id,4)", "md5-bits(id,4)");
  check_canonical(" desc-ticks( when ) ", "desc-ticks(when)");
  check_canonical("asc-ticks(t)", "asc-ticks(t)");

  /* Sharded kinds and shard counts. */
  s = parse_strategy("random-suffix(day,400)");
  REQUIRE(s != NULL);
  CHECK_INT(partkv_key_strategy_is_sharded(s), 1);
  CHECK_INT(partkv_key_strategy_shard_count(s), 400);
  partkv_key_strategy_destroy(s);
  s = parse_strategy("hash-suffix(day,OrderId,200,hash=md5)");
  REQUIRE(s != NULL);
  CHECK_INT(partkv_key_strategy_is_sharded(s), 1);
  CHECK_INT(partkv_key_strategy_shard_count(s), 200);
  partkv_key_strategy_destroy(s);
  s = parse_strategy("concat(a,b)");
  REQUIRE(s != NULL);
  CHECK_INT(partkv_key_strategy_is_sharded(s), 0);
  CHECK_INT(partkv_key_strategy_shard_count(s), 1);
  partkv_key_strategy_destroy(s);

  /* Only `length` bytes are read. */
  s = NULL;
  REQUIRE_OK(partkv_key_strategy_parse(with_tail, 14, &s));
  {
    char* text = partkv_key_strategy_to_string(s, NULL);
    CHECK_STR(text, "md5-bits(id,4)");
    partkv_free(text);
  }
  partkv_key_strategy_destroy(s);

  /* Errors: InvalidArgument saying what is wrong; *strategy unchanged. */
  s = untouched;
  CHECK_CODE(partkv_key_strategy_parse("random-suffix(day,0)", 20, &s), PARTKV_INVALID_ARGUMENT,
             "N = 0 is outside 1..65535");
  CHECK_CODE(partkv_key_strategy_parse("sideways(a)", 11, &s), PARTKV_INVALID_ARGUMENT,
             "accepted forms");
  CHECK_CODE(partkv_key_strategy_parse("hash-suffix(a,b,10,hash=sha1)", 29, &s),
             PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_key_strategy_parse("concat(1abc)", 12, &s), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_key_strategy_parse("md5-bits(id,129)", 16, &s), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_key_strategy_parse("", 0, &s), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_key_strategy_parse(NULL, 0, &s), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK(s == untouched);
  CHECK_CODE(partkv_key_strategy_parse("concat(a)", 9, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_key_strategy_destroy(NULL);
}

/* compute with `strategy` on `entity` is OK and gives `expected`. */
static void check_compute(const char* strategy, const partkv_entity_t* entity,
                          const char* expected) {
  partkv_key_strategy_t* s = parse_strategy(strategy);
  char* key = NULL;
  size_t length = 0;
  if (s == NULL) return;
  if (pk_ok(partkv_key_strategy_compute(s, entity, &key, &length), __FILE__, __LINE__, strategy)) {
    if (!pk_text_is(key, length, expected)) {
      pk_fail_text(__FILE__, __LINE__, strategy, key, length, expected);
    }
    if (key != NULL && key[length] != '\0') pk_fail(__FILE__, __LINE__, "key NUL-terminated");
    partkv_free(key);
  }
  partkv_key_strategy_destroy(s);
}

/* docs/keys.md's vectors. */
static void compute_doc_vectors(const partkv_entity_t* e, int64_t when) {
  check_compute("concat(deviceId,date,sep=-)", e, "abc-123-2018");
  check_compute("concat(deviceId,date,sep=)", e, "abc-1232018");
  check_compute("hash-suffix(day,OrderId,200,hash=codepoint-product)", e, "2018-08-09.11");
  check_compute("hash-suffix(day,src,200,hash=md5)", e, "2018-08-09.33");
  check_compute("md5-bits(empty,4)", e, "1101");
  check_compute("md5-bits(empty,16)", e, "1101010000011101");
  {
    char expected[32];
    snprintf(expected, sizeof expected, "%019lld", (long long)when);
    check_compute("asc-ticks(when)", e, expected);
    snprintf(expected, sizeof expected, "%019lld", (long long)(PARTKV_MAX_TICKS - when));
    check_compute("desc-ticks(when)", e, expected);
  }
}

/* hash-suffix (xxh3): a suffix in 1..N, the same on every call; the base before it. */
static void compute_hash_suffix(const partkv_entity_t* e) {
  partkv_key_strategy_t* s;
  char* key;
  char* base;
  size_t length, base_length;
  s = parse_strategy("hash-suffix(day,OrderId,8)");
  REQUIRE(s != NULL);
  key = NULL;
  REQUIRE_OK(partkv_key_strategy_compute(s, e, &key, &length));
  CHECK(length == 12 && strncmp(key, "2018-08-09.", 11) == 0 && key[11] >= '1' && key[11] <= '8');
  {
    char* again = NULL;
    CHECK_OK(partkv_key_strategy_compute(s, e, &again, NULL));
    CHECK(again != NULL && strcmp(again, key) == 0);
    partkv_free(again);
  }
  base = NULL;
  REQUIRE_OK(partkv_key_strategy_compute_base(s, e, &base, &base_length));
  CHECK_TEXT(base, base_length, "2018-08-09");
  partkv_free(base);
  partkv_free(key);
  partkv_key_strategy_destroy(s);
}

/* random-suffix: draws 1..N; over 200 draws of N = 2 both suffixes come up. */
static void compute_random_suffix(const partkv_entity_t* e) {
  partkv_key_strategy_t* s;
  char* key;
  char* base;
  size_t length;
  int i, seen_low = 0, seen_high = 0;
  s = parse_strategy("random-suffix(day,2)");
  REQUIRE(s != NULL);
  for (i = 0; i < 200; ++i) {
    key = NULL;
    REQUIRE_OK(partkv_key_strategy_compute(s, e, &key, &length));
    if (pk_text_is(key, length, "2018-08-09.1")) {
      ++seen_low;
    } else if (pk_text_is(key, length, "2018-08-09.2")) {
      ++seen_high;
    } else {
      pk_fail_text(__FILE__, __LINE__, "random-suffix key", key, length, "2018-08-09.{1,2}");
    }
    partkv_free(key);
  }
  CHECK(seen_low > 0 && seen_high > 0);
  base = NULL;
  REQUIRE_OK(partkv_key_strategy_compute_base(s, e, &base, NULL));
  CHECK_STR(base, "2018-08-09");
  partkv_free(base);
  partkv_key_strategy_destroy(s);
}

/* compute_base of a non-sharded kind is the whole key. */
static void compute_base_of_unsharded(const partkv_entity_t* e) {
  partkv_key_strategy_t* s;
  char* base;
  size_t base_length;
  s = parse_strategy("concat(deviceId,date)");
  REQUIRE(s != NULL);
  base = NULL;
  REQUIRE_OK(partkv_key_strategy_compute_base(s, e, &base, &base_length));
  CHECK_TEXT(base, base_length, "abc-123-2018");
  partkv_free(base);
  partkv_key_strategy_destroy(s);
}

/* A missing field, a Binary, a ticks strategy of another type: InvalidArgument naming the
 * field; *key unchanged. */
static void compute_errors(const partkv_entity_t* e) {
  partkv_key_strategy_t* s;
  char* key;
  size_t length;
  s = parse_strategy("hash-suffix(day,VIN,200)");
  REQUIRE(s != NULL);
  key = (char*)"untouched";
  CHECK_CODE(
      partkv_key_strategy_compute(s, e, &key, &length), PARTKV_INVALID_ARGUMENT,
      "entity has no property 'VIN' required by key strategy hash-suffix(day,VIN,200,hash=xxh3)");
  CHECK_CODE(partkv_key_strategy_compute_base(s, e, &key, &length), PARTKV_INVALID_ARGUMENT, "VIN");
  CHECK_STR(key, "untouched");
  CHECK_CODE(partkv_key_strategy_compute(s, e, NULL, &length), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_key_strategy_compute_base(s, e, NULL, &length), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_key_strategy_compute(s, NULL, &key, &length), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_key_strategy_compute_base(s, NULL, &key, &length), PARTKV_INVALID_ARGUMENT,
             NULL);
  partkv_key_strategy_destroy(s);
  s = parse_strategy("concat(blob)");
  REQUIRE(s != NULL);
  CHECK_CODE(partkv_key_strategy_compute(s, e, &key, &length), PARTKV_INVALID_ARGUMENT, "blob");
  partkv_key_strategy_destroy(s);
  s = parse_strategy("desc-ticks(day)");
  REQUIRE(s != NULL);
  CHECK_CODE(partkv_key_strategy_compute(s, e, &key, &length), PARTKV_INVALID_ARGUMENT,
             "property 'day' is String, but key strategy desc-ticks(day) needs a DateTime");
  partkv_key_strategy_destroy(s);
  CHECK_STR(key, "untouched");
}

void test_KeyStrategyCompute(void) {
  partkv_entity_t* e = partkv_entity_create();
  int64_t when = 0;

  partkv_entity_set_string(e, "deviceId", 8, "abc-123", 7);
  partkv_entity_set_int32(e, "date", 4, 2018);
  partkv_entity_set_string(e, "day", 3, "2018-08-09", 10);
  partkv_entity_set_string(e, "OrderId", 7, "AB1", 3);
  partkv_entity_set_string(e, "src", 3, "abc", 3);
  partkv_entity_set_string(e, "empty", 5, "", 0);
  partkv_entity_set_binary(e, "blob", 4, "x", 1);
  REQUIRE_OK(partkv_datetime_parse("2018-08-09T10:11:12Z", 20, &when));
  partkv_entity_set_datetime(e, "when", 4, when);

  compute_doc_vectors(e, when);
  STEP(compute_hash_suffix(e));
  STEP(compute_random_suffix(e));
  STEP(compute_base_of_unsharded(e));
  STEP(compute_errors(e));
  partkv_entity_destroy(e);
}

void test_Filters(void) {
  partkv_filter_t* f = NULL;
  partkv_filter_t* untouched;
  partkv_entity_t* e = pk_entity("a", "r1");
  partkv_entity_t* other = pk_entity("b", "r1");
  size_t length = 0;
  char* text;
  const char* q = "Age gt 30 and not (PartitionKey eq 'b')";

  partkv_entity_set_int32(e, "Age", 3, 31);
  partkv_entity_set_int32(other, "Age", 3, 40);

  REQUIRE_OK(partkv_filter_parse(q, strlen(q), &f));
  REQUIRE(f != NULL);
  CHECK_INT(partkv_filter_matches(f, e), 1);
  CHECK_INT(partkv_filter_matches(f, other), 0); /* PartitionKey 'b' */
  partkv_entity_set_int32(e, "Age", 3, 30);
  CHECK_INT(partkv_filter_matches(f, e), 0); /* not gt 30 */
  partkv_entity_set_int64(e, "Age", 3, 50);
  CHECK_INT(partkv_filter_matches(f, e), 0); /* another type: false (Azure's rule) */
  partkv_entity_remove(e, "Age", 3);
  CHECK_INT(partkv_filter_matches(f, e), 0); /* missing: false */
  text = partkv_filter_canonical(f, &length);
  CHECK_TEXT(text, length, "((Age gt 30) and (not (PartitionKey eq 'b')))");
  partkv_free(text);
  partkv_filter_destroy(f);

  /* Typed literals. */
  {
    const char* typed = "When ge datetime'2024-01-01T00:00:00Z' and Big eq 5000000000L";
    int64_t when = 0;
    REQUIRE_OK(partkv_datetime_parse("2024-06-01T00:00:00Z", 20, &when));
    partkv_entity_set_datetime(e, "When", 4, when);
    partkv_entity_set_int64(e, "Big", 3, 5000000000LL);
    f = NULL;
    REQUIRE_OK(partkv_filter_parse(typed, strlen(typed), &f));
    CHECK_INT(partkv_filter_matches(f, e), 1);
    partkv_entity_set_int64(e, "Big", 3, 5000000001LL);
    CHECK_INT(partkv_filter_matches(f, e), 0);
    partkv_filter_destroy(f);
  }

  /* The empty filter matches everything; its canonical text is "". */
  f = NULL;
  REQUIRE_OK(partkv_filter_parse(NULL, 0, &f));
  CHECK_INT(partkv_filter_matches(f, e), 1);
  CHECK_INT(partkv_filter_matches(f, other), 1);
  text = partkv_filter_canonical(f, &length);
  CHECK_TEXT(text, length, "");
  partkv_free(text);
  partkv_filter_destroy(f);

  /* Only `length` bytes are read: "Age gt 30" of a longer buffer. */
  f = NULL;
  REQUIRE_OK(partkv_filter_parse("Age gt 30 and", 9, &f));
  text = partkv_filter_canonical(f, NULL);
  CHECK_STR(text, "(Age gt 30)");
  partkv_free(text);
  partkv_filter_destroy(f);

  /* Errors: InvalidArgument naming the byte position; *filter unchanged. */
  untouched = (partkv_filter_t*)&f;
  f = untouched;
  CHECK_CODE(partkv_filter_parse("Age gt", 6, &f), PARTKV_INVALID_ARGUMENT, "position");
  CHECK_CODE(partkv_filter_parse("Age ~ 3", 7, &f), PARTKV_INVALID_ARGUMENT, "at position 4");
  CHECK_CODE(partkv_filter_parse("(Age gt 3", 9, &f), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK(f == untouched);
  CHECK_CODE(partkv_filter_parse("Age gt 3", 8, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_INT(partkv_filter_matches(NULL, e), 0);
  partkv_filter_destroy(NULL);
  partkv_entity_destroy(e);
  partkv_entity_destroy(other);
}
