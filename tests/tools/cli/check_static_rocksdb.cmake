# The partkv program carries RocksDB's static library (docs/design.md "RocksDB linked statically
# into `partkv`"): no librocksdb among the shared libraries it needs, and RocksDB's code defined
# in the program itself.
# Usage: cmake -DPROGRAM=<partkv> -DREADELF=<readelf> -DNM=<nm> -P check_static_rocksdb.cmake
execute_process(COMMAND ${READELF} -d ${PROGRAM} OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${READELF} -d ${PROGRAM} failed (${rc})")
endif()
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*" needed "${dynamic}")
if(NOT needed)
  message(FATAL_ERROR "${PROGRAM}: readelf shows no NEEDED entry at all:\n${dynamic}")
endif()
foreach(entry ${needed})
  if(entry MATCHES "librocksdb")
    message(FATAL_ERROR "${PROGRAM} loads the shared RocksDB: ${entry}")
  endif()
endforeach()
execute_process(COMMAND ${NM} --defined-only ${PROGRAM} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} --defined-only ${PROGRAM} failed (${rc})")
endif()
# rocksdb::DB::Open(...), mangled.
if(NOT symbols MATCHES " T _ZN7rocksdb2DB4Open")
  message(FATAL_ERROR "${PROGRAM} does not define rocksdb::DB::Open: RocksDB is not linked in")
endif()
list(LENGTH needed count)
message(STATUS
  "${PROGRAM}: ${count} shared libraries, none of them RocksDB; rocksdb::DB::Open defined")
