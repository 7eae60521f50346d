# The include rules of docs/design.md "Layers", checked on the sources:
#   api/include/partkv/  public headers: only other public headers;
#   api/src/             the vocabulary's implementation: no engine/ or api/front/ header;
#   engine/              no api/ header and no front-class header (FRONT_HEADERS below);
#   tools/, bench/compare/  public headers only (and their own files).
# Usage: cmake -DSOURCE_DIR=<repository> -P check_layers.cmake
set(FRONT_HEADERS store.h table.h bulk_writer.h analyzer.h filter.h partkv.h)
set(violations "")

function(check_dir dir glob forbidden_regex why)
  file(GLOB_RECURSE files ${SOURCE_DIR}/${dir}/${glob})
  foreach(f ${files})
    file(STRINGS ${f} includes REGEX "^#include \"")
    foreach(line ${includes})
      if(line MATCHES "${forbidden_regex}")
        file(RELATIVE_PATH rel ${SOURCE_DIR} ${f})
        string(APPEND violations "\n  ${rel}: ${line} (${why})")
      endif()
    endforeach()
  endforeach()
  set(violations "${violations}" PARENT_SCOPE)
endfunction()

list(JOIN FRONT_HEADERS "|" front)
string(REPLACE "." "\\." front "${front}")
check_dir(api/include/partkv "*.h" "^#include \"(engine|api|tools|bench)/"
          "a public header includes only public headers")
check_dir(api/src "*" "^#include \"(engine|api/front)/" "the vocabulary is below the engine")
check_dir(engine "*" "^#include \"(api/|partkv/(${front})\")"
          "the engine never includes the front classes")
check_dir(tools "*" "^#include \"(engine|api)/" "tools use the public API only")
check_dir(bench/compare "*" "^#include \"(engine|api)/" "partkv-bench uses the public API only")

if(violations)
  message(FATAL_ERROR "includes that break the layers:${violations}")
endif()
message(STATUS "layers: every include follows docs/design.md")
