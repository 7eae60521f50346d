/* Statuses, the version, types, DateTime and Guid text, entities and their JSON
 * (partkv/c.h "Status", "Values", "Entities"; partkv/status.h, value.h, entity.h, json.h). */

#include <ctype.h>
#include <stdlib.h>

#include "harness.h"

/* 2024-01-02T03:04:05.1234567Z: 19724 days and 11045 s after the Unix epoch, + 1234567 ticks. */
static const int64_t kTicks2024 =
    PARTKV_UNIX_EPOCH_TICKS + (19724LL * 86400 + 11045) * 10000000LL + 1234567;
static const uint8_t kGuidBytes[16] = {0xc9, 0xda, 0x64, 0x55, 0x21, 0x3d, 0x42, 0xc9,
                                       0x9a, 0x79, 0x3e, 0x91, 0x49, 0xa5, 0x78, 0x33};

void test_Status(void) {
  size_t length = 99;
  /* NULL is OK. */
  CHECK_INT(partkv_status_code(NULL), PARTKV_OK);
  CHECK_TEXT(partkv_status_message(NULL, &length), length, "");
  CHECK_INT(length, 0);
  CHECK_STR(partkv_status_message(NULL, NULL), "");
  CHECK_INT(partkv_status_retry_after_ms(NULL), 0);
  CHECK_INT(partkv_status_failed_op(NULL), -1);
  partkv_status_destroy(NULL);
  partkv_free(NULL);

  /* Every code's name, and "Unknown" outside the set. */
  CHECK_STR(partkv_code_name(PARTKV_OK), "OK");
  CHECK_STR(partkv_code_name(PARTKV_NOT_FOUND), "NotFound");
  CHECK_STR(partkv_code_name(PARTKV_ALREADY_EXISTS), "AlreadyExists");
  CHECK_STR(partkv_code_name(PARTKV_PRECONDITION_FAILED), "PreconditionFailed");
  CHECK_STR(partkv_code_name(PARTKV_INVALID_ARGUMENT), "InvalidArgument");
  CHECK_STR(partkv_code_name(PARTKV_THROTTLED), "Throttled");
  CHECK_STR(partkv_code_name(PARTKV_CORRUPTION), "Corruption");
  CHECK_STR(partkv_code_name(PARTKV_IO_ERROR), "IOError");
  CHECK_STR(partkv_code_name(PARTKV_BUSY), "Busy");
  CHECK_STR(partkv_code_name(PARTKV_PERMISSION_DENIED), "PermissionDenied");
  CHECK_STR(partkv_code_name(PARTKV_TRIMMED), "Trimmed");
  CHECK_STR(partkv_code_name((partkv_code_t)11), "Unknown");
  CHECK_STR(partkv_code_name((partkv_code_t)-1), "Unknown");
  /* The numbers are the CLI's exit statuses and partkv::Status::Code's: never renumbered. */
  CHECK_INT(PARTKV_NOT_FOUND, 1);
  CHECK_INT(PARTKV_ALREADY_EXISTS, 2);
  CHECK_INT(PARTKV_PRECONDITION_FAILED, 3);
  CHECK_INT(PARTKV_INVALID_ARGUMENT, 4);
  CHECK_INT(PARTKV_THROTTLED, 5);
  CHECK_INT(PARTKV_CORRUPTION, 6);
  CHECK_INT(PARTKV_IO_ERROR, 7);
  CHECK_INT(PARTKV_BUSY, 8);
  CHECK_INT(PARTKV_PERMISSION_DENIED, 9);

  /* A real status: its code, message (borrowed, NUL-terminated), no retry-after, no op. */
  {
    int64_t ticks = 5;
    partkv_status_t* s = partkv_datetime_parse("2024-13-01T00:00:00Z", 20, &ticks);
    const char* message;
    REQUIRE(s != NULL);
    CHECK_INT(partkv_status_code(s), PARTKV_INVALID_ARGUMENT);
    message = partkv_status_message(s, &length);
    REQUIRE(message != NULL);
    CHECK(length > 0);
    CHECK_INT(strlen(message), length);
    /* The message is without the code's name. */
    CHECK(strncmp(message, "InvalidArgument", 15) != 0);
    CHECK_INT(partkv_status_retry_after_ms(s), 0);
    CHECK_INT(partkv_status_failed_op(s), -1);
    CHECK_INT(ticks, 5); /* out parameters are left as they were on failure */
    partkv_status_destroy(s);
  }
}

void test_Version(void) {
  const char* v = partkv_version();
  int parts = 0;
  const char* p;
  REQUIRE(v != NULL);
  /* "MAJOR.MINOR.PATCH": three runs of digits joined by two dots. */
  for (p = v; *p != '\0';) {
    if (!isdigit((unsigned char)*p)) break;
    while (isdigit((unsigned char)*p)) ++p;
    ++parts;
    if (*p == '.')
      ++p;
    else
      break;
  }
  CHECK(*p == '\0');
  CHECK_INT(parts, 3);
#ifdef PARTKV_EXPECTED_VERSION
  /* The build's project version (tests/api/c/CMakeLists.txt passes it). */
  CHECK_STR(v, PARTKV_EXPECTED_VERSION);
#endif
  CHECK(partkv_version() == v || strcmp(partkv_version(), v) == 0); /* static text */
}

void test_Types(void) {
  CHECK_STR(partkv_type_name(PARTKV_TYPE_STRING), "String");
  CHECK_STR(partkv_type_name(PARTKV_TYPE_BINARY), "Binary");
  CHECK_STR(partkv_type_name(PARTKV_TYPE_BOOLEAN), "Boolean");
  CHECK_STR(partkv_type_name(PARTKV_TYPE_DATETIME), "DateTime");
  CHECK_STR(partkv_type_name(PARTKV_TYPE_DOUBLE), "Double");
  CHECK_STR(partkv_type_name(PARTKV_TYPE_GUID), "Guid");
  CHECK_STR(partkv_type_name(PARTKV_TYPE_INT32), "Int32");
  CHECK_STR(partkv_type_name(PARTKV_TYPE_INT64), "Int64");
  CHECK_STR(partkv_type_name((partkv_type_t)0), "");
  CHECK_STR(partkv_type_name((partkv_type_t)9), "");
  /* The numbers are persisted on disk. */
  CHECK_INT(PARTKV_TYPE_STRING, 1);
  CHECK_INT(PARTKV_TYPE_INT64, 8);
  CHECK_INT(PARTKV_UNIX_EPOCH_TICKS, 621355968000000000LL);
  CHECK_INT(PARTKV_MAX_TICKS, 3155378975999999999LL);
}

void test_DateTime(void) {
  int64_t ticks = 0;
  size_t length = 0;
  char* text;
  /* Not NUL-terminated: only `length` bytes are read. */
  const char buffer[] = "2024-01-02T03:04:05.1234567Zjunk";

  REQUIRE_OK(partkv_datetime_parse(buffer, 28, &ticks));
  CHECK_INT(ticks, kTicks2024);
  text = partkv_datetime_format(ticks, &length);
  REQUIRE(text != NULL);
  CHECK_TEXT(text, length, "2024-01-02T03:04:05.1234567Z");
  CHECK_INT(text[length], '\0');
  partkv_free(text);

  REQUIRE_OK(partkv_datetime_parse("1970-01-01T00:00:00Z", 20, &ticks));
  CHECK_INT(ticks, PARTKV_UNIX_EPOCH_TICKS);
  /* A missing Z and an explicit +00:00 are UTC; another offset is applied. */
  REQUIRE_OK(partkv_datetime_parse("1970-01-01T00:00:00", 19, &ticks));
  CHECK_INT(ticks, PARTKV_UNIX_EPOCH_TICKS);
  REQUIRE_OK(partkv_datetime_parse("1970-01-01T01:00:00+01:00", 25, &ticks));
  CHECK_INT(ticks, PARTKV_UNIX_EPOCH_TICKS);

  text = partkv_datetime_format(PARTKV_MAX_TICKS, NULL); /* the length is optional */
  CHECK_STR(text, "9999-12-31T23:59:59.9999999Z");
  partkv_free(text);
  text = partkv_datetime_format(0, &length);
  CHECK_TEXT(text, length, "0001-01-01T00:00:00.0000000Z");
  partkv_free(text);

  /* Bad text: InvalidArgument, *ticks unchanged. */
  ticks = 42;
  CHECK_CODE(partkv_datetime_parse("2024-13-01T00:00:00Z", 20, &ticks), PARTKV_INVALID_ARGUMENT,
             NULL);
  CHECK_CODE(partkv_datetime_parse("yesterday", 9, &ticks), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_datetime_parse(NULL, 0, &ticks), PARTKV_INVALID_ARGUMENT, NULL);
  /* The length counts: the first 10 bytes are not a DateTime. */
  CHECK_CODE(partkv_datetime_parse(buffer, 10, &ticks), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_INT(ticks, 42);
  CHECK_CODE(partkv_datetime_parse(buffer, 28, NULL), PARTKV_INVALID_ARGUMENT, NULL);
}

void test_Guid(void) {
  uint8_t bytes[16];
  char text[37];
  const char upper[] = "{C9DA6455-213D-42C9-9A79-3E9149A57833}";
  memset(bytes, 0, sizeof bytes);
  REQUIRE_OK(partkv_guid_parse(upper, strlen(upper), bytes));
  CHECK(memcmp(bytes, kGuidBytes, 16) == 0);
  memset(text, 'x', sizeof text);
  partkv_guid_format(bytes, text);
  CHECK_STR(text, "c9da6455-213d-42c9-9a79-3e9149a57833");
  REQUIRE_OK(partkv_guid_parse(text, 36, bytes));
  CHECK(memcmp(bytes, kGuidBytes, 16) == 0);

  /* Bad text: InvalidArgument, the bytes unchanged. */
  memset(bytes, 7, sizeof bytes);
  CHECK_CODE(partkv_guid_parse("c9da6455-213d-42c9-9a79-3e9149a5783", 35, bytes),
             PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_CODE(partkv_guid_parse("g9da6455-213d-42c9-9a79-3e9149a57833", 36, bytes),
             PARTKV_INVALID_ARGUMENT, NULL);
  CHECK_INT(bytes[0], 7);
  CHECK_INT(bytes[15], 7);
  CHECK_CODE(partkv_guid_parse(text, 36, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_guid_format(NULL, text);  /* no-op */
  partkv_guid_format(bytes, NULL); /* no-op */
}

void test_EntityKeys(void) {
  partkv_entity_t* e = partkv_entity_create();
  size_t length = 99;
  const char* text;
  /* Keys are (pointer, length): not NUL-terminated, and may hold NUL bytes. */
  const char pk[] = "customer-42XYZ";
  const char rk[] = {'o', '\0', 'k'};
  REQUIRE(e != NULL);

  text = partkv_entity_partition_key(e, &length);
  CHECK_TEXT(text, length, "");
  text = partkv_entity_row_key(e, &length);
  CHECK_TEXT(text, length, "");
  text = partkv_entity_etag(e, &length);
  CHECK_TEXT(text, length, "");
  CHECK_INT(partkv_entity_timestamp(e), 0);
  CHECK_INT(partkv_entity_property_count(e), 0);

  partkv_entity_set_partition_key(e, pk, 11);
  partkv_entity_set_row_key(e, rk, 3);
  text = partkv_entity_partition_key(e, &length);
  CHECK_TEXT(text, length, "customer-42");
  CHECK_INT(text[length], '\0'); /* borrowed text is NUL-terminated */
  text = partkv_entity_row_key(e, &length);
  REQUIRE_INT(length, 3);
  CHECK(memcmp(text, rk, 3) == 0);
  CHECK_INT(text[3], '\0');
  CHECK_STR(partkv_entity_partition_key(e, NULL), "customer-42"); /* the length is optional */

  /* NULL with length 0 is the empty text. */
  partkv_entity_set_row_key(e, NULL, 0);
  text = partkv_entity_row_key(e, &length);
  CHECK_TEXT(text, length, "");

  partkv_entity_set_etag(e, "W/\"x\"", 5);
  partkv_entity_set_timestamp(e, kTicks2024);
  text = partkv_entity_etag(e, &length);
  CHECK_TEXT(text, length, "W/\"x\"");
  CHECK_INT(partkv_entity_timestamp(e), kTicks2024);
  partkv_entity_destroy(e);
  partkv_entity_destroy(NULL);
}

/* The entity of tests/engine/vocab/json_test.cc's AllTypes(): every Edm type, a Timestamp and an
 * ETag. */
static partkv_entity_t* all_types(void) {
  partkv_entity_t* e = pk_entity("p", "r");
  const uint8_t bin[3] = {0x00, 0x01, 0xfe};
  int64_t dt = 0;
  partkv_status_t* s = partkv_datetime_parse("2013-08-22T01:12:06.2608595Z", 28, &dt);
  if (s != NULL) pk_ok(s, __FILE__, __LINE__, "partkv_datetime_parse");
  partkv_entity_set_etag(e, "W/\"0x5B168C7B6E589D2\"", 21);
  partkv_entity_set_timestamp(e, kTicks2024);
  /* Set out of name order: properties are kept sorted by name. */
  partkv_entity_set_string(e, "str", 3, "s", 1);
  partkv_entity_set_int64(e, "i64", 3, 9007199254740993LL);
  partkv_entity_set_int32(e, "i32", 3, -7);
  partkv_entity_set_guid(e, "guid", 4, kGuidBytes);
  partkv_entity_set_datetime(e, "dt", 2, dt);
  partkv_entity_set_double(e, "dint", 4, 3.0);
  partkv_entity_set_double(e, "dbl", 3, 1.5);
  partkv_entity_set_bool(e, "bool", 4, 1);
  partkv_entity_set_binary(e, "bin", 3, bin, 3);
  return e;
}

/* Each property by index: its name and type, in name order, and find's index of it. */
static void properties_by_index(const partkv_entity_t* e, const char* const names[9],
                                const partkv_type_t types[9]) {
  size_t i, length, index = 99;
  const char* text;
  REQUIRE_INT(partkv_entity_property_count(e), 9);
  for (i = 0; i < 9; ++i) {
    text = partkv_entity_property_name(e, i, &length);
    CHECK_TEXT(text, length, names[i]);
    CHECK_INT(partkv_entity_property_type(e, i), types[i]);
    CHECK(partkv_entity_find(e, names[i], strlen(names[i]), &index));
    CHECK_INT(index, i);
  }
}

/* Each getter on its own type. */
static void properties_getters(const partkv_entity_t* e) {
  size_t length;
  const char* text;
  const uint8_t* bin;
  bin = (const uint8_t*)partkv_entity_property_binary(e, 0, &length);
  REQUIRE(bin != NULL);
  REQUIRE_INT(length, 3);
  CHECK(bin[0] == 0x00 && bin[1] == 0x01 && bin[2] == 0xfe);
  CHECK_INT(bin[3], 0); /* NUL-terminated as well */
  CHECK_INT(partkv_entity_property_bool(e, 1), 1);
  CHECK(partkv_entity_property_double(e, 2) == 1.5);
  CHECK(partkv_entity_property_double(e, 3) == 3.0);
  {
    char* dt = partkv_datetime_format(partkv_entity_property_datetime(e, 4), NULL);
    CHECK_STR(dt, "2013-08-22T01:12:06.2608595Z");
    partkv_free(dt);
  }
  REQUIRE(partkv_entity_property_guid(e, 5) != NULL);
  CHECK(memcmp(partkv_entity_property_guid(e, 5), kGuidBytes, 16) == 0);
  CHECK_INT(partkv_entity_property_int32(e, 6), -7);
  CHECK_INT(partkv_entity_property_int64(e, 7), 9007199254740993LL);
  text = partkv_entity_property_string(e, 8, &length);
  CHECK_TEXT(text, length, "s");
  CHECK_INT(text[length], '\0');
}

/* A getter of another type, or an index out of range: 0, and NULL with length 0 for text. */
static void properties_other_types(const partkv_entity_t* e, const partkv_type_t types[9]) {
  size_t i, length;
  for (i = 0; i < 10; ++i) {
    partkv_type_t t = i < 9 ? types[i] : (partkv_type_t)0;
    length = 5;
    if (t != PARTKV_TYPE_STRING) {
      CHECK(partkv_entity_property_string(e, i, &length) == NULL);
      CHECK_INT(length, 0);
    }
    length = 5;
    if (t != PARTKV_TYPE_BINARY) {
      CHECK(partkv_entity_property_binary(e, i, &length) == NULL);
      CHECK_INT(length, 0);
    }
    if (t != PARTKV_TYPE_BOOLEAN) CHECK_INT(partkv_entity_property_bool(e, i), 0);
    if (t != PARTKV_TYPE_DATETIME) CHECK_INT(partkv_entity_property_datetime(e, i), 0);
    if (t != PARTKV_TYPE_DOUBLE) CHECK(partkv_entity_property_double(e, i) == 0.0);
    if (t != PARTKV_TYPE_GUID) CHECK(partkv_entity_property_guid(e, i) == NULL);
    if (t != PARTKV_TYPE_INT32) CHECK_INT(partkv_entity_property_int32(e, i), 0);
    if (t != PARTKV_TYPE_INT64) CHECK_INT(partkv_entity_property_int64(e, i), 0);
  }
  length = 5;
  CHECK(partkv_entity_property_name(e, 9, &length) == NULL);
  CHECK_INT(length, 0);
  CHECK_INT(partkv_entity_property_type(e, 9), 0);
  CHECK_INT(partkv_entity_property_type(e, (size_t)-1), 0);
}

/* find: 0 for a missing name, *index left alone. */
static void properties_find(const partkv_entity_t* e) {
  size_t index;
  index = 77;
  CHECK_INT(partkv_entity_find(e, "nope", 4, &index), 0);
  CHECK_INT(partkv_entity_find(e, "i32x", 3, &index), 1); /* the length counts: "i32" */
  CHECK_INT(index, 6);
  CHECK_INT(partkv_entity_find(e, "str", 3, NULL), 1);
}

/* Setting a name again replaces the value and its type, keeping one property. */
static void properties_set_again(partkv_entity_t* e) {
  size_t length, index = 99;
  const char* text;
  partkv_entity_set_string(e, "i32", 3, "now text", 8);
  CHECK_INT(partkv_entity_property_count(e), 9);
  REQUIRE(partkv_entity_find(e, "i32", 3, &index));
  CHECK_INT(partkv_entity_property_type(e, index), PARTKV_TYPE_STRING);
  CHECK_INT(partkv_entity_property_int32(e, index), 0);
  text = partkv_entity_property_string(e, index, &length);
  CHECK_TEXT(text, length, "now text");
  /* A String may hold NUL bytes; the value is (pointer, length). */
  partkv_entity_set_string(e, "nul", 3, "a\0b", 3);
  REQUIRE(partkv_entity_find(e, "nul", 3, &index));
  text = partkv_entity_property_string(e, index, &length);
  REQUIRE_INT(length, 3);
  CHECK(memcmp(text, "a\0b", 3) == 0);
  partkv_entity_set_bool(e, "flag", 4, 42); /* any non-zero is true */
  REQUIRE(partkv_entity_find(e, "flag", 4, &index));
  CHECK_INT(partkv_entity_property_bool(e, index), 1);
  partkv_entity_set_bool(e, "flag", 4, 0);
  CHECK_INT(partkv_entity_property_bool(e, index), 0);
  CHECK_INT(partkv_entity_property_type(e, index), PARTKV_TYPE_BOOLEAN);
  partkv_entity_set_binary(e, "empty", 5, NULL, 0);
  REQUIRE(partkv_entity_find(e, "empty", 5, &index));
  CHECK_INT(partkv_entity_property_type(e, index), PARTKV_TYPE_BINARY);
  CHECK(partkv_entity_property_binary(e, index, &length) != NULL);
  CHECK_INT(length, 0);
  CHECK_INT(partkv_entity_property_count(e), 12);
}

/* remove: 1 when it existed; the later properties move down. */
static void properties_remove(partkv_entity_t* e) {
  size_t length;
  const char* text;
  CHECK_INT(partkv_entity_remove(e, "bin", 3), 1);
  CHECK_INT(partkv_entity_remove(e, "bin", 3), 0);
  CHECK_INT(partkv_entity_remove(e, "zzz", 3), 0);
  CHECK_INT(partkv_entity_property_count(e), 11);
  text = partkv_entity_property_name(e, 0, &length);
  CHECK_TEXT(text, length, "bool");
}

/* clear: no properties, keys and system properties kept. */
static void properties_clear(partkv_entity_t* e) {
  size_t length, index = 99;
  const char* text;
  partkv_entity_clear_properties(e);
  CHECK_INT(partkv_entity_property_count(e), 0);
  CHECK_INT(partkv_entity_find(e, "str", 3, &index), 0);
  text = partkv_entity_partition_key(e, &length);
  CHECK_TEXT(text, length, "p");
  CHECK_INT(partkv_entity_timestamp(e), kTicks2024);
  text = partkv_entity_etag(e, &length);
  CHECK_TEXT(text, length, "W/\"0x5B168C7B6E589D2\"");
}

void test_EntityProperties(void) {
  partkv_entity_t* e = all_types();
  static const char* const names[9] = {"bin",  "bool", "dbl", "dint", "dt",
                                       "guid", "i32",  "i64", "str"};
  static const partkv_type_t types[9] = {
      PARTKV_TYPE_BINARY, PARTKV_TYPE_BOOLEAN,  PARTKV_TYPE_DOUBLE,
      PARTKV_TYPE_DOUBLE, PARTKV_TYPE_DATETIME, PARTKV_TYPE_GUID,
      PARTKV_TYPE_INT32,  PARTKV_TYPE_INT64,    PARTKV_TYPE_STRING};

  STEP(properties_by_index(e, names, types));
  STEP(properties_getters(e));
  properties_other_types(e, types);
  properties_find(e);
  STEP(properties_set_again(e));
  properties_remove(e);
  properties_clear(e);
  partkv_entity_destroy(e);
}

void test_EntityClone(void) {
  partkv_entity_t* e = all_types();
  partkv_entity_t* copy = partkv_entity_clone(e);
  size_t length;
  char* a;
  char* b;
  REQUIRE(copy != NULL);
  a = partkv_entity_to_json(e, PARTKV_JSON_FULL_METADATA, 1, NULL);
  b = partkv_entity_to_json(copy, PARTKV_JSON_FULL_METADATA, 1, NULL);
  CHECK(a != NULL && b != NULL && strcmp(a, b) == 0);
  partkv_free(a);
  partkv_free(b);
  /* A copy: changing one leaves the other. */
  partkv_entity_set_int32(copy, "i32", 3, 1000);
  partkv_entity_set_partition_key(copy, "q", 1);
  CHECK_INT(pk_int32(e, "i32", 0), -7);
  CHECK_INT(pk_int32(copy, "i32", 0), 1000);
  CHECK_TEXT(partkv_entity_partition_key(e, &length), length, "p");
  partkv_entity_destroy(e);
  /* The copy outlives its original. */
  CHECK_INT(partkv_entity_property_count(copy), 9);
  CHECK_TEXT(partkv_entity_partition_key(copy, &length), length, "q");
  CHECK(partkv_entity_clone(NULL) == NULL);
  partkv_entity_destroy(copy);
}

void test_EntityJson(void) {
  partkv_entity_t* e = all_types();
  partkv_entity_t* back = NULL;
  partkv_entity_t* untouched;
  size_t length = 0;
  char* json;
  char* again;

  /* The three metadata levels, as tests/engine/vocab/json_test.cc has them for the same entity. */
  json = partkv_entity_to_json(e, PARTKV_JSON_MINIMAL_METADATA, 1, &length);
  CHECK_TEXT(
      json, length,
      "{\"odata.etag\":\"W/\\\"0x5B168C7B6E589D2\\\"\",\"PartitionKey\":\"p\",\"RowKey\":\"r\","
      "\"Timestamp@odata.type\":\"Edm.DateTime\",\"Timestamp\":\"2024-01-02T03:04:05.1234567Z\","
      "\"bin@odata.type\":\"Edm.Binary\",\"bin\":\"AAH+\",\"bool\":true,\"dbl\":1.5,"
      "\"dint@odata.type\":\"Edm.Double\",\"dint\":3.0,"
      "\"dt@odata.type\":\"Edm.DateTime\",\"dt\":\"2013-08-22T01:12:06.2608595Z\","
      "\"guid@odata.type\":\"Edm.Guid\",\"guid\":\"c9da6455-213d-42c9-9a79-3e9149a57833\","
      "\"i32\":-7,\"i64@odata.type\":\"Edm.Int64\",\"i64\":\"9007199254740993\",\"str\":\"s\"}");
  CHECK(json != NULL && json[length] == '\0');

  /* Read back with read_system: the same entity, Timestamp and ETag included. */
  REQUIRE_OK(partkv_entity_from_json(json, length, 1, &back));
  REQUIRE(back != NULL);
  again = partkv_entity_to_json(back, PARTKV_JSON_MINIMAL_METADATA, 1, NULL);
  CHECK(again != NULL && strcmp(json, again) == 0);
  CHECK_INT(partkv_entity_timestamp(back), kTicks2024);
  CHECK_TEXT(partkv_entity_etag(back, &length), length, "W/\"0x5B168C7B6E589D2\"");
  CHECK_INT(partkv_entity_property_count(back), 9);
  CHECK_INT(pk_int32(back, "i32", 0), -7);
  partkv_free(again);
  partkv_entity_destroy(back);
  back = NULL;

  /* Without read_system, Timestamp and odata.etag are ignored. */
  REQUIRE_OK(partkv_entity_from_json(json, strlen(json), 0, &back));
  CHECK_INT(partkv_entity_timestamp(back), 0);
  CHECK_TEXT(partkv_entity_etag(back, &length), length, "");
  CHECK_INT(partkv_entity_property_count(back), 9);
  partkv_entity_destroy(back);
  back = NULL;
  partkv_free(json);

  json = partkv_entity_to_json(e, PARTKV_JSON_FULL_METADATA, 1, &length);
  CHECK_HAS(json, length, "\"bool@odata.type\":\"Edm.Boolean\",\"bool\":true,");
  CHECK_HAS(json, length, "\"i32@odata.type\":\"Edm.Int32\",\"i32\":-7,");
  partkv_free(json);

  json = partkv_entity_to_json(e, PARTKV_JSON_NO_METADATA, 1, &length);
  CHECK_TEXT(
      json, length,
      "{\"PartitionKey\":\"p\",\"RowKey\":\"r\",\"Timestamp\":\"2024-01-02T03:04:05.1234567Z\","
      "\"bin\":\"AAH+\",\"bool\":true,\"dbl\":1.5,\"dint\":3.0,"
      "\"dt\":\"2013-08-22T01:12:06.2608595Z\",\"guid\":\"c9da6455-213d-42c9-9a79-3e9149a57833\","
      "\"i32\":-7,\"i64\":\"9007199254740993\",\"str\":\"s\"}");
  partkv_free(json);

  /* include_system = 0: no Timestamp, no odata.etag. */
  json = partkv_entity_to_json(e, PARTKV_JSON_FULL_METADATA, 0, &length);
  CHECK(json != NULL && !pk_text_has(json, length, "Timestamp") &&
        !pk_text_has(json, length, "odata.etag"));
  partkv_free(json);

  /* Not NUL-terminated input: only `length` bytes are read. */
  {
    const char doc[] = "{\"PartitionKey\":\"a\",\"RowKey\":\"b\",\"n\":5}trailing garbage";
    REQUIRE_OK(partkv_entity_from_json(doc, strlen(doc) - strlen("trailing garbage"), 0, &back));
    CHECK_INT(pk_int32(back, "n", 0), 5);
    CHECK_TEXT(partkv_entity_row_key(back, &length), length, "b");
    partkv_entity_destroy(back);
  }

  /* Bad JSON: InvalidArgument naming what is wrong; *entity unchanged. */
  untouched = e;
  back = untouched;
  CHECK_CODE(partkv_entity_from_json("{\"a\":1,}", 8, 0, &back), PARTKV_INVALID_ARGUMENT,
             "invalid JSON at byte 8");
  CHECK_CODE(partkv_entity_from_json("[1,2]", 5, 0, &back), PARTKV_INVALID_ARGUMENT,
             "entity JSON must be an object");
  CHECK_CODE(partkv_entity_from_json("{\"a\":3000000000}", 16, 0, &back), PARTKV_INVALID_ARGUMENT,
             "outside the Int32 range");
  CHECK_CODE(partkv_entity_from_json("{\"Timestamp\":5}", 15, 1, &back), PARTKV_INVALID_ARGUMENT,
             NULL);
  CHECK_CODE(partkv_entity_from_json(NULL, 0, 0, &back), PARTKV_INVALID_ARGUMENT, NULL);
  CHECK(back == untouched);
  CHECK_CODE(partkv_entity_from_json("{}", 2, 0, NULL), PARTKV_INVALID_ARGUMENT, NULL);
  partkv_entity_destroy(e);
}
