# The include rules of docs/design.md "Layers", checked on the sources. Each folder is a layer and
# may include only what lies beneath it:
#   api/include/partkv/  the public headers: only other public headers;
#   engine/vocab/        the vocabulary's code: public vocabulary headers and its own;
#   engine/protocol/     the Table service's wire protocol: the vocabulary and its own;
#   engine/*.{h,cc}      what both backends share: the vocabulary and engine/*.h; no RocksDB, no
#                        libcurl, no backend's file, no protocol;
#   engine/local/        the local backend: engine/*.h, its own, RocksDB; nothing of engine/remote/
#                        or engine/protocol/, no libcurl;
#   engine/remote/       the remote backend: engine/*.h, its own, engine/protocol/, libcurl;
#                        nothing of engine/local/, no RocksDB;
#   api/front/           the front classes: anything of engine/, its own;
#   api/c/               the C API (partkv/c.h): public headers and its own;
#   tools/               public headers, tools/ (each program its own folder and tools/common/);
#                        tools/serve/ also engine/protocol/;
#   engine/port/         header-only, below everything: every layer may include it.
# The front-class headers (FRONT_HEADERS) are public but sit above the engine: nothing in
# engine/ includes them.
# Usage: cmake -DSOURCE_DIR=<repository> -P check_layers.cmake
set(FRONT_HEADERS store.h table.h bulk_writer.h analyzer.h filter.h copy.h partkv.h)
set(violations "")

# Every include (quoted or angled) of the files `glob` under `dir` (recursing into subfolders
# only when `recurse` is ON) that matches `forbidden_regex` and not `allowed_regex` ("" allows
# nothing more) is a violation.
function(check_dir dir recurse forbidden_regex allowed_regex why)
  if(recurse)
    file(GLOB_RECURSE files ${SOURCE_DIR}/${dir}/*.h ${SOURCE_DIR}/${dir}/*.cc
         ${SOURCE_DIR}/${dir}/*.c)
  else()
    file(GLOB files ${SOURCE_DIR}/${dir}/*.h ${SOURCE_DIR}/${dir}/*.cc ${SOURCE_DIR}/${dir}/*.c)
  endif()
  if(NOT files)
    string(APPEND violations "\n  ${dir}: no source files (the rule names a folder that is gone)")
  endif()
  foreach(f ${files})
    file(STRINGS ${f} includes REGEX "^#include [\"<]")
    foreach(line ${includes})
      if(line MATCHES "${forbidden_regex}" AND
         (allowed_regex STREQUAL "" OR NOT line MATCHES "${allowed_regex}"))
        file(RELATIVE_PATH rel ${SOURCE_DIR} ${f})
        string(APPEND violations "\n  ${rel}: ${line} (${why})")
      endif()
    endforeach()
  endforeach()
  set(violations "${violations}" PARENT_SCOPE)
endfunction()

list(JOIN FRONT_HEADERS "|" front)
string(REPLACE "." "\\." front "${front}")
set(port "^#include \"engine/port/")
set(rocks "^#include [\"<]rocksdb/")
set(curl "^#include [\"<]curl/")

check_dir(engine/port ON "^#include \"" "${port}"
          "engine/port/ is below everything: the standard library and its own headers only")
check_dir(api/include/partkv ON "^#include \"(engine|api|tools|bench)/" ""
          "a public header includes only public headers")
check_dir(engine/vocab ON "^#include \"(engine|api|tools|bench)/" "^#include \"engine/(vocab|port)/"
          "the vocabulary is the bottom layer")
check_dir(engine/vocab ON "^#include \"partkv/(${front})\"" ""
          "the vocabulary is below the front classes")
check_dir(engine/protocol ON "^#include \"(engine|api|tools|bench)/"
          "^#include \"engine/(protocol|vocab|port)/"
          "the protocol includes only the vocabulary and its own headers")
check_dir(engine/protocol ON "^#include \"partkv/(${front})\"" ""
          "the protocol is below the front classes")
check_dir(engine OFF "^#include \"(engine/(local|remote|protocol)/|api/|tools/|bench/)" ""
          "what both backends share includes neither backend nor the protocol")
check_dir(engine OFF "${rocks}|${curl}" "" "only engine/local/ uses RocksDB, only engine/remote/ libcurl")
check_dir(engine ON "^#include \"partkv/(${front})\"" ""
          "the engine is below the front classes")
check_dir(engine/local ON "^#include \"(engine/(remote|protocol)/|api/|tools/|bench/)|${curl}" ""
          "the local backend knows nothing of the remote one, the protocol or libcurl")
check_dir(engine/remote ON "^#include \"(engine/local/|api/|tools/|bench/)|${rocks}" ""
          "the remote backend knows nothing of the local one or RocksDB")
check_dir(api/front ON "^#include \"(tools|bench|api/c)/" ""
          "the front classes are below the C API and the programs")
check_dir(api/c ON "^#include \"(engine|api|tools|bench)/" "^#include \"(api/c|engine/port)/"
          "the C API wraps the public API only")
check_dir(tools/cli ON "^#include \"(engine|api|bench)/|${rocks}" "${port}"
          "the CLI uses the public API only")
check_dir(tools/common ON "^#include \"(engine|api|bench|tools/(cli|serve|bench))/|${rocks}"
          "${port}" "what the programs share uses the public API only")
check_dir(tools/serve ON "^#include \"(engine|api|bench|tools/(cli|bench))/|${rocks}"
          "^#include \"engine/(protocol|port)/"
          "partkv serve uses the public API and the protocol only")
check_dir(tools/bench ON "^#include \"(engine|api|bench|tools/(cli|serve))/" "${port}"
          "partkv-bench uses the public API (and RocksDB for its raw baseline) only")

if(violations)
  message(FATAL_ERROR "includes that break the layers:${violations}")
endif()
message(STATUS "layers: every include follows docs/design.md")
