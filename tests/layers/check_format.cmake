# Every C and C++ source of the repository is as clang-format (the repository's .clang-format:
# Google style, 100 columns) would write it, so the style is the tool's and not a reviewer's.
# A table that reads better by hand sits between "// clang-format off" and "// clang-format on".
# Usage: cmake -DSOURCE_DIR=<repository> -DCLANG_FORMAT=<clang-format> -P check_format.cmake
if(NOT CLANG_FORMAT)
  message(FATAL_ERROR "clang-format was not found at configure time (tools/deps.sh installs it)")
endif()
set(files "")
foreach(dir api engine tools bench tests python)
  file(GLOB_RECURSE found ${SOURCE_DIR}/${dir}/*.h ${SOURCE_DIR}/${dir}/*.cc ${SOURCE_DIR}/${dir}/*.c)
  list(APPEND files ${found})
endforeach()
list(FILTER files EXCLUDE REGEX "/(node_modules|corpus)/")
list(LENGTH files count)
if(count EQUAL 0)
  message(FATAL_ERROR "no sources found under ${SOURCE_DIR}")
endif()
execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror --style=file ${files}
                WORKING_DIRECTORY ${SOURCE_DIR}
                RESULT_VARIABLE result ERROR_VARIABLE errors)
if(NOT result EQUAL 0)
  string(REGEX MATCHALL "[^\n]*: error: code should be clang-formatted[^\n]*" drift "${errors}")
  list(LENGTH drift n)
  string(REPLACE ";" "\n  " drift "${drift}")
  message(FATAL_ERROR "${n} places differ from clang-format (run clang-format -i on them):\n  ${drift}")
endif()
message(STATUS "format: ${count} sources as clang-format writes them")
