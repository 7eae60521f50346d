/* The harness's functions and the runner (tests/api/c/harness.h). */

#include "harness.h"

#include <errno.h>
#include <ftw.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

int pk_failures = 0;
int pk_ended = 0;

/* ---- Checks ---- */

void pk_fail(const char* file, int line, const char* what) {
  ++pk_failures;
  fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what);
}

void pk_fail_int(const char* file, int line, const char* what, long long actual,
                 long long expected) {
  ++pk_failures;
  fprintf(stderr, "%s:%d: FAILED: %s\n  actual:   %lld\n  expected: %lld\n", file, line, what,
          actual, expected);
}

void pk_fail_text(const char* file, int line, const char* what, const char* actual,
                  size_t actual_length, const char* expected) {
  ++pk_failures;
  fprintf(stderr, "%s:%d: FAILED: %s\n  actual:   ", file, line, what);
  if (actual == NULL) {
    fprintf(stderr, "(NULL)");
  } else {
    fprintf(stderr, "\"%.*s\"", (int)actual_length, actual);
  }
  fprintf(stderr, "\n  expected: \"%s\"\n", expected == NULL ? "(NULL)" : expected);
}

int pk_text_is(const char* text, size_t length, const char* expected) {
  if (text == NULL || expected == NULL) return 0;
  return strlen(expected) == length && memcmp(text, expected, length) == 0;
}

int pk_text_has(const char* text, size_t length, const char* fragment) {
  size_t n, i;
  if (text == NULL || fragment == NULL) return 0;
  n = strlen(fragment);
  if (n == 0) return 1;
  for (i = 0; i + n <= length; ++i) {
    if (memcmp(text + i, fragment, n) == 0) return 1;
  }
  return 0;
}

/* ---- Statuses ---- */

int pk_ok(partkv_status_t* status, const char* file, int line, const char* what) {
  size_t length = 0;
  const char* message;
  if (status == NULL) return 1;
  message = partkv_status_message(status, &length);
  ++pk_failures;
  fprintf(stderr, "%s:%d: FAILED: %s\n  returned %s: %.*s\n", file, line, what,
          partkv_code_name(partkv_status_code(status)), (int)length, message);
  partkv_status_destroy(status);
  return 0;
}

int pk_code(partkv_status_t* status, partkv_code_t code, const char* fragment, const char* file,
            int line, const char* what) {
  size_t length = 0;
  const char* message;
  int good;
  if (status == NULL) {
    ++pk_failures;
    fprintf(stderr, "%s:%d: FAILED: %s\n  returned OK, expected %s\n", file, line, what,
            partkv_code_name(code));
    return 0;
  }
  message = partkv_status_message(status, &length);
  good = partkv_status_code(status) == code &&
         (fragment == NULL || pk_text_has(message, length, fragment));
  if (!good) {
    ++pk_failures;
    fprintf(stderr, "%s:%d: FAILED: %s\n  returned %s: %.*s\n  expected %s containing \"%s\"\n",
            file, line, what, partkv_code_name(partkv_status_code(status)), (int)length, message,
            partkv_code_name(code), fragment == NULL ? "" : fragment);
  }
  partkv_status_destroy(status);
  return good;
}

/* ---- Files ---- */

static char test_dir[PK_PATH_MAX];

const char* pk_dir(void) { return test_dir; }

void pk_path(char out[PK_PATH_MAX], const char* name) {
  if (snprintf(out, PK_PATH_MAX, "%s/%s", test_dir, name) >= PK_PATH_MAX) {
    pk_fail(__FILE__, __LINE__, "path too long");
  }
}

int pk_write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "wb");
  size_t n = strlen(text);
  int good;
  if (f == NULL) return 0;
  good = fwrite(text, 1, n, f) == n;
  return fclose(f) == 0 && good;
}

int pk_make_temp_dir(char out[PK_PATH_MAX]) {
  const char* base = getenv("TMPDIR");
  if (base == NULL || base[0] == '\0') base = "/tmp";
  if (snprintf(out, PK_PATH_MAX, "%s/partkv-c-test-XXXXXX", base) >= PK_PATH_MAX) return 0;
  return mkdtemp(out) != NULL;
}

static int remove_entry(const char* path, const struct stat* st, int flag, struct FTW* ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  if (remove(path) != 0) {
    fprintf(stderr, "cannot remove %s: %s\n", path, strerror(errno));
    return -1;
  }
  return 0;
}

int pk_remove_tree(const char* path) {
  return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0;
}

/* ---- Another process ---- */

static const char* self_path = NULL; /* argv[0] */

int pk_open_in_child(const char* path) {
  char* args[4];
  pid_t pid;
  int status = 0;
  args[0] = (char*)self_path;
  args[1] = (char*)"--open";
  args[2] = (char*)path;
  args[3] = NULL;
  if (self_path == NULL || posix_spawnp(&pid, self_path, NULL, NULL, args, environ) != 0) {
    return -1;
  }
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

/* partkv_c_tests --open PATH: the child of pk_open_in_child. */
static int open_and_exit(const char* path) {
  partkv_store_t* store = NULL;
  partkv_status_t* s = partkv_store_open(path, strlen(path), NULL, &store);
  int code = (int)partkv_status_code(s);
  partkv_status_destroy(s);
  partkv_store_close(store);
  return code;
}

/* ---- Stores and entities ---- */

partkv_store_t* pk_open_store(const char* name, const partkv_store_options_t* options) {
  char path[PK_PATH_MAX];
  partkv_store_t* store = NULL;
  pk_path(path, name);
  if (!pk_ok(partkv_store_open(path, strlen(path), options, &store), __FILE__, __LINE__,
             "partkv_store_open")) {
    return NULL;
  }
  return store;
}

partkv_table_t* pk_create_table(partkv_store_t* store, const char* name,
                                const partkv_table_options_t* options) {
  partkv_table_t* table = NULL;
  if (!pk_ok(partkv_store_create_table(store, name, strlen(name), options), __FILE__, __LINE__,
             "partkv_store_create_table")) {
    return NULL;
  }
  if (!pk_ok(partkv_store_open_table(store, name, strlen(name), NULL, NULL, &table), __FILE__,
             __LINE__, "partkv_store_open_table")) {
    return NULL;
  }
  return table;
}

partkv_entity_t* pk_entity(const char* partition_key, const char* row_key) {
  partkv_entity_t* e = partkv_entity_create();
  partkv_entity_set_partition_key(e, partition_key, strlen(partition_key));
  partkv_entity_set_row_key(e, row_key, strlen(row_key));
  return e;
}

int32_t pk_int32(const partkv_entity_t* entity, const char* name, int32_t missing) {
  size_t index = 0;
  if (!partkv_entity_find(entity, name, strlen(name), &index)) return missing;
  if (partkv_entity_property_type(entity, index) != PARTKV_TYPE_INT32) return missing;
  return partkv_entity_property_int32(entity, index);
}

void pk_row_key(char out[16], int i) { snprintf(out, 16, "%06d", i); }

int pk_fill(partkv_table_t* table, const char* partition_key, int n) {
  partkv_batch_t* batch = partkv_batch_create();
  partkv_entity_t* e = partkv_entity_create();
  char rk[16];
  int i, good = 1;
  partkv_entity_set_partition_key(e, partition_key, strlen(partition_key));
  for (i = 0; i < n && good; ++i) {
    pk_row_key(rk, i);
    partkv_entity_set_row_key(e, rk, strlen(rk));
    partkv_entity_set_int32(e, "n", 1, i);
    partkv_batch_add(batch, PARTKV_OP_INSERT, e, NULL, 0);
    if (partkv_batch_size(batch) == 100 || i == n - 1) {
      good = pk_ok(partkv_table_submit(table, batch, NULL), __FILE__, __LINE__,
                   "partkv_table_submit (pk_fill)");
      partkv_batch_clear(batch);
    }
  }
  partkv_entity_destroy(e);
  partkv_batch_destroy(batch);
  return good;
}

/* ---- The runner ---- */

#define PK_TEST(name) void test_##name(void);
#include "test_list.h"
#undef PK_TEST

static const struct {
  const char* name;
  void (*run)(void);
} tests[] = {
#define PK_TEST(name) {#name, test_##name},
#include "test_list.h"
#undef PK_TEST
};

static int run_one(size_t i) {
  int before = pk_failures;
  if (!pk_make_temp_dir(test_dir)) {
    fprintf(stderr, "[ FAILED ] %s: cannot make a temporary directory: %s\n", tests[i].name,
            strerror(errno));
    ++pk_failures;
    return 0;
  }
  printf("[ RUN    ] %s\n", tests[i].name);
  fflush(stdout);
  pk_ended = 0;
  tests[i].run();
  if (!pk_remove_tree(test_dir)) {
    fprintf(stderr, "%s: cannot remove %s\n", tests[i].name, test_dir);
    ++pk_failures;
  }
  test_dir[0] = '\0';
  printf("[ %s ] %s\n", pk_failures == before ? "    OK" : "FAILED", tests[i].name);
  fflush(stdout);
  return pk_failures == before;
}

/* partkv_c_tests              runs every test
 * partkv_c_tests NAME...      runs those
 * partkv_c_tests --list       prints the names
 * partkv_c_tests --open PATH  opens and closes the store at PATH: exits with the code (for
 *                             pk_open_in_child) */
int main(int argc, char** argv) {
  const size_t count = sizeof tests / sizeof tests[0];
  size_t i;
  int a, failed = 0;
  self_path = argv[0];
  if (argc == 3 && strcmp(argv[1], "--open") == 0) return open_and_exit(argv[2]);
  if (argc == 2 && strcmp(argv[1], "--list") == 0) {
    for (i = 0; i < count; ++i) printf("%s\n", tests[i].name);
    return 0;
  }
  if (argc == 1) {
    for (i = 0; i < count; ++i) failed += !run_one(i);
  } else {
    for (a = 1; a < argc; ++a) {
      for (i = 0; i < count && strcmp(tests[i].name, argv[a]) != 0; ++i) {
      }
      if (i == count) {
        fprintf(stderr, "no test named %s\n", argv[a]);
        return 2;
      }
      failed += !run_one(i);
    }
  }
  printf("%d test(s) failed\n", failed);
  return failed == 0 ? 0 : 1;
}
