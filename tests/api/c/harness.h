/* The C API's test harness (tests/api/c/): checks that count failures and go on, checks that end
 * the test, a fresh temporary directory per test, and helpers over partkv_status_t.
 *
 * A test is `void test_NAME(void)`, listed in tests/api/c/test_list.h; main.c runs one by name, or
 * all of them in one process (for Valgrind). A long test is a list of steps, each a function of
 * its file run with STEP. Before each test the runner makes a new directory
 * with mkdtemp under $TMPDIR (else /tmp), pk_dir(), and removes it with everything in it after
 * the test, whatever the test did. */

#ifndef PARTKV_TESTS_API_C_HARNESS_H_
#define PARTKV_TESTS_API_C_HARNESS_H_

/* mkdtemp, nftw, strnlen: POSIX.1-2008 with XSI, under -std=c99. Must come before any include:
 * include this header first. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "partkv/c.h"

/* Failed checks of the test running (and of the whole run). */
extern int pk_failures;

/* ---- Checks ---- */

void pk_fail(const char* file, int line, const char* what);
void pk_fail_int(const char* file, int line, const char* what, long long actual,
                 long long expected);
void pk_fail_text(const char* file, int line, const char* what, const char* actual,
                  size_t actual_length, const char* expected);

/* Records a failure and goes on. */
#define CHECK(cond)                                  \
  do {                                               \
    if (!(cond)) pk_fail(__FILE__, __LINE__, #cond); \
  } while (0)
/* Set by a REQUIRE that failed, and cleared by the runner before each test: STEP ends the test
 * when a REQUIRE ended the step it ran. */
extern int pk_ended;
/* Records a failure and ends the test (`return` from a void function: the test, or a step that
 * the test runs with STEP). */
#define REQUIRE(cond)                     \
  do {                                    \
    if (!(cond)) {                        \
      pk_fail(__FILE__, __LINE__, #cond); \
      pk_ended = 1;                       \
      return;                             \
    }                                     \
  } while (0)

#define CHECK_INT(actual, expected)                                                              \
  do {                                                                                           \
    long long pk_a_ = (long long)(actual), pk_e_ = (long long)(expected);                        \
    if (pk_a_ != pk_e_) pk_fail_int(__FILE__, __LINE__, #actual " == " #expected, pk_a_, pk_e_); \
  } while (0)
#define REQUIRE_INT(actual, expected)                                          \
  do {                                                                         \
    long long pk_a_ = (long long)(actual), pk_e_ = (long long)(expected);      \
    if (pk_a_ != pk_e_) {                                                      \
      pk_fail_int(__FILE__, __LINE__, #actual " == " #expected, pk_a_, pk_e_); \
      pk_ended = 1;                                                            \
      return;                                                                  \
    }                                                                          \
  } while (0)

/* Runs `call`, a step of the test (a void function of the test's file, one concern of the test),
 * and ends the test when a REQUIRE ended the step: as if the step's code stood in the test. */
#define STEP(call)        \
  do {                    \
    call;                 \
    if (pk_ended) return; \
  } while (0)

/* 1 when the `length` bytes at `text` are exactly the NUL-terminated `expected`. */
int pk_text_is(const char* text, size_t length, const char* expected);
/* 1 when the `length` bytes at `text` contain the NUL-terminated `fragment`. */
int pk_text_has(const char* text, size_t length, const char* fragment);

/* (text, length) equals the C string `expected`. */
#define CHECK_TEXT(text, length, expected)                                                \
  do {                                                                                    \
    const char* pk_t_ = (text);                                                           \
    size_t pk_l_ = (length);                                                              \
    if (!pk_text_is(pk_t_, pk_l_, (expected)))                                            \
      pk_fail_text(__FILE__, __LINE__, #text " is " #expected, pk_t_, pk_l_, (expected)); \
  } while (0)
/* A NUL-terminated `text` equals `expected`. */
#define CHECK_STR(text, expected)                                     \
  do {                                                                \
    const char* pk_t_ = (text);                                       \
    if (pk_t_ == NULL || strcmp(pk_t_, (expected)) != 0)              \
      pk_fail_text(__FILE__, __LINE__, #text " is " #expected, pk_t_, \
                   pk_t_ == NULL ? 0 : strlen(pk_t_), (expected));    \
  } while (0)
/* (text, length) contains `fragment`. */
#define CHECK_HAS(text, length, fragment)                                                       \
  do {                                                                                          \
    const char* pk_t_ = (text);                                                                 \
    size_t pk_l_ = (length);                                                                    \
    if (!pk_text_has(pk_t_, pk_l_, (fragment)))                                                 \
      pk_fail_text(__FILE__, __LINE__, #text " contains " #fragment, pk_t_, pk_l_, (fragment)); \
  } while (0)

/* ---- Statuses ---- */

/* Checks that `status` is NULL; otherwise records its code and message and destroys it.
 * 1 when it was NULL. */
int pk_ok(partkv_status_t* status, const char* file, int line, const char* what);
/* Checks `status`'s code and, when `fragment` is not NULL, that its message contains it; destroys
 * it. 1 when both held. */
int pk_code(partkv_status_t* status, partkv_code_t code, const char* fragment, const char* file,
            int line, const char* what);

#define CHECK_OK(expr) ((void)pk_ok((expr), __FILE__, __LINE__, #expr))
#define REQUIRE_OK(expr)                             \
  do {                                               \
    if (!pk_ok((expr), __FILE__, __LINE__, #expr)) { \
      pk_ended = 1;                                  \
      return;                                        \
    }                                                \
  } while (0)
#define CHECK_CODE(expr, code, fragment) \
  ((void)pk_code((expr), (code), (fragment), __FILE__, __LINE__, #expr))

/* ---- Files ---- */

/* This test's temporary directory (made by the runner, removed after the test). */
const char* pk_dir(void);
/* pk_dir() + "/" + name, into a static buffer of the caller's: `out` of PK_PATH_MAX bytes. */
#define PK_PATH_MAX 1024
void pk_path(char out[PK_PATH_MAX], const char* name);
/* Writes `text` to the file `path` (replacing it); 1 on success. */
int pk_write_file(const char* path, const char* text);
/* Makes a directory (mkdtemp) under $TMPDIR or /tmp; removes a tree. 1 on success. */
int pk_make_temp_dir(char out[PK_PATH_MAX]);
int pk_remove_tree(const char* path);

/* Runs this test program again, in a child process, to open the store at `path` and close it
 * (partkv_c_tests --open PATH); its exit status is the code partkv_store_open returned. The
 * code, or -1 when the child could not be run. */
int pk_open_in_child(const char* path);

/* ---- Stores and entities ---- */

/* Opens (creates) the store in pk_dir()/name with `options` (NULL: the defaults); NULL on
 * failure, recorded. */
partkv_store_t* pk_open_store(const char* name, const partkv_store_options_t* options);
/* Creates table `name` with `options` and opens it (no schemes); NULL on failure, recorded. */
partkv_table_t* pk_create_table(partkv_store_t* store, const char* name,
                                const partkv_table_options_t* options);
/* A new entity with the keys given (NUL-terminated). */
partkv_entity_t* pk_entity(const char* partition_key, const char* row_key);
/* The Int32 property `name` of `entity`, or `missing` when it has none of that type. */
int32_t pk_int32(const partkv_entity_t* entity, const char* name, int32_t missing);
/* Inserts rows pk/000000 .. pk/(n-1) with Int32 property n = i, in batches of 100. 1 on
 * success. */
int pk_fill(partkv_table_t* table, const char* partition_key, int n);
/* "%06d" of i. */
void pk_row_key(char out[16], int i);

#endif /* PARTKV_TESTS_API_C_HARNESS_H_ */
