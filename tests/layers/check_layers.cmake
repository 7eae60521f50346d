# The include rules of docs/design.md "Layers", checked on the sources:
#   api/include/partkv/  public headers: only other public headers;
#   api/src/             the vocabulary's implementation: no engine/, api/front/ or api/protocol/
#                        header;
#   api/protocol/        the Table service's wire protocol: only public and protocol headers;
#   engine/              of api/, only api/protocol/; no front-class header (FRONT_HEADERS below);
#   api/c/               the C API (partkv/c.h): public headers and its own;
#   tools/               public headers and api/protocol/ (and their own files);
#   bench/compare/       public headers only (and its own files).
# Usage: cmake -DSOURCE_DIR=<repository> -P check_layers.cmake
set(FRONT_HEADERS store.h table.h bulk_writer.h analyzer.h filter.h partkv.h)
set(violations "")

# Every quoted include of the files `glob` under `dir` that matches `forbidden_regex` and not
# `allowed_regex` ("" allows nothing more) is a violation.
function(check_dir dir glob forbidden_regex allowed_regex why)
  file(GLOB_RECURSE files ${SOURCE_DIR}/${dir}/${glob})
  foreach(f ${files})
    file(STRINGS ${f} includes REGEX "^#include \"")
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
check_dir(api/include/partkv "*.h" "^#include \"(engine|api|tools|bench)/" ""
          "a public header includes only public headers")
check_dir(api/src "*" "^#include \"(engine|api/front|api/protocol)/" ""
          "the vocabulary is below the engine and the protocol")
check_dir(api/protocol "*" "^#include \"" "^#include \"(partkv|api/protocol)/[^/\"]+\""
          "the protocol includes only public and protocol headers")
check_dir(api/protocol "*" "^#include \"partkv/(${front})\"" ""
          "the protocol is below the front classes")
check_dir(engine "*" "^#include \"(api/|partkv/(${front})\")" "^#include \"api/protocol/"
          "the engine includes no front class, and of api/ only api/protocol/")
check_dir(api/c "*" "^#include \"(engine|api/front|api/protocol|api/src)/" ""
          "the C API wraps the public API only")
check_dir(tools "*" "^#include \"(engine|api)/" "^#include \"api/protocol/"
          "tools use the public API and the protocol only")
check_dir(bench/compare "*" "^#include \"(engine|api)/" ""
          "partkv-bench uses the public API only")

if(violations)
  message(FATAL_ERROR "includes that break the layers:${violations}")
endif()
message(STATUS "layers: every include follows docs/design.md")
