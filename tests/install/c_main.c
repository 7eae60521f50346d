/* A C99 program built without CMake, with the C compiler, from `pkg-config --cflags --libs partkv`
 * alone (tests/install/check_install.cmake, step 4): partkv/c.h from the installed package. */
#include <stdio.h>
#include <string.h>

#include "partkv/c.h"

/* Prints a failed call's status and releases it; 1 when there was one. */
static int failed(partkv_status_t* status, const char* what) {
  size_t length = 0;
  const char* message;
  if (status == NULL) return 0;
  message = partkv_status_message(status, &length);
  fprintf(stderr, "%s: %s: %.*s\n", what, partkv_code_name(partkv_status_code(status)), (int)length,
          message);
  partkv_status_destroy(status);
  return 1;
}

int main(int argc, char** argv) {
  partkv_store_t* store = NULL;
  partkv_table_t* table = NULL;
  partkv_entity_t* entity;
  partkv_entity_t* back = NULL;
  size_t index = 0;
  int rc = 1;
  if (argc != 2) return 2;
  if (failed(partkv_store_open(argv[1], strlen(argv[1]), NULL, &store), "open")) return 1;
  if (failed(partkv_store_create_table(store, "Things", 6, NULL), "create table") ||
      failed(partkv_store_open_table(store, "Things", 6, NULL, NULL, &table), "open table")) {
    partkv_store_close(store);
    return 1;
  }
  entity = partkv_entity_create();
  partkv_entity_set_partition_key(entity, "p", 1);
  partkv_entity_set_row_key(entity, "r", 1);
  partkv_entity_set_int64(entity, "n", 1, 9);
  if (!failed(partkv_table_insert(table, entity, NULL), "insert") &&
      !failed(partkv_table_get(table, "p", 1, "r", 1, &back), "get") &&
      partkv_entity_find(back, "n", 1, &index) &&
      partkv_entity_property_type(back, index) == PARTKV_TYPE_INT64) {
    printf("c read back: %lld (libpartkv %s)\n",
           (long long)partkv_entity_property_int64(back, index), partkv_version());
    rc = 0;
  }
  partkv_entity_destroy(back);
  partkv_entity_destroy(entity);
  partkv_table_close(table);
  partkv_store_close(store);
  return rc;
}
