# c_api.CoversEveryFunction: every function partkv/c.h declares (with the headers it includes at its
# end, partkv/c_copy.h, ...) is called by a test of tests/api/c/,
# and every error code but PARTKV_OK is what some checked status must be (CHECK_CODE and the
# other checks that compare a status's code).
#   cmake -DHEADER=api/include/partkv/c.h -DTEST_DIR=tests/api/c -P check_coverage.cmake

file(READ ${HEADER} header)
# The headers of the C API's other parts, which c.h includes at its end (partkv/c_copy.h, ...):
# their functions count as c.h's.
get_filename_component(header_dir ${HEADER} DIRECTORY)
string(REGEX MATCHALL "#include \"partkv/c_[a-z0-9_]+\\.h\"" parts "${header}")
foreach(part IN LISTS parts)
  string(REGEX REPLACE "#include \"partkv/(c_[a-z0-9_]+\\.h)\"" "\\1" part "${part}")
  file(READ ${header_dir}/${part} part_text)
  string(APPEND header "${part_text}")
endforeach()
file(GLOB sources ${TEST_DIR}/*.c)
set(tests "")
foreach(source IN LISTS sources)
  file(READ ${source} text)
  string(APPEND tests "${text}")
endforeach()

string(REGEX MATCHALL "partkv_[a-z0-9_]+\\(" calls "${header}")
list(REMOVE_DUPLICATES calls)
list(LENGTH calls count)
if(count LESS 150)
  message(FATAL_ERROR "found only ${count} functions in ${HEADER}")
endif()
set(missing "")
foreach(call IN LISTS calls)
  string(REPLACE "(" "" name "${call}")
  if(NOT tests MATCHES "[^a-z0-9_]${name}\\(")
    list(APPEND missing ${name})
  endif()
endforeach()

# The codes of partkv_code_t, each the expected code of a checked status somewhere.
string(REGEX MATCH "typedef enum partkv_code_t {[^}]*}" codes_enum "${header}")
string(REGEX MATCHALL "PARTKV_[A-Z_]+ =" codes "${codes_enum}")
foreach(code IN LISTS codes)
  string(REPLACE " =" "" code "${code}")
  if(code STREQUAL "PARTKV_OK")
    continue()
  endif()
  if(NOT tests MATCHES "(CHECK_CODE|check_open_fails|check_batch_fails|partkv_status_code)[^;]*[^A-Z_]${code}[^A-Z_]")
    list(APPEND missing ${code})
  endif()
endforeach()

if(missing)
  list(JOIN missing "\n  " listed)
  message(FATAL_ERROR "partkv/c.h names these, but no test of ${TEST_DIR} exercises them:\n  ${listed}")
endif()
message(STATUS "${count} functions of partkv/c.h, and every error code, are exercised")
