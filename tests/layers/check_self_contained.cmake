# The repository speaks of itself only: no source, script or doc names a file outside it (a
# sibling folder of the checkout, an absolute path of the machine it was written on, or a
# document the repository does not hold).
# Usage: cmake -DSOURCE_DIR=<repository> -P check_self_contained.cmake
set(patterns
  "\\.\\./shared/"           # a sibling folder of the checkout
  "/work/"                   # an absolute path of a development machine
  "conventions\\.md")        # a style guide the repository does not hold
set(globs *.h *.cc *.c *.py *.sh *.cmake *.txt *.md *.mjs *.js *.json *.in *.toml *.cfg)
set(files "")
foreach(dir api engine tools bench tests python docs cmake .ci)
  foreach(g ${globs})
    file(GLOB_RECURSE found ${SOURCE_DIR}/${dir}/${g})
    list(APPEND files ${found})
  endforeach()
endforeach()
file(GLOB top ${SOURCE_DIR}/*.md ${SOURCE_DIR}/CMakeLists.txt)
list(APPEND files ${top})
list(FILTER files EXCLUDE REGEX "/(node_modules|__pycache__)/|package-lock\\.json$")
# This file names the patterns it looks for.
list(FILTER files EXCLUDE REGEX "/check_self_contained\\.cmake$")
set(found_any "")
foreach(f ${files})
  foreach(p ${patterns})
    file(STRINGS ${f} hits REGEX "${p}")
    foreach(h ${hits})
      file(RELATIVE_PATH rel ${SOURCE_DIR} ${f})
      string(APPEND found_any "\n  ${rel}: ${h}")
    endforeach()
  endforeach()
endforeach()
if(found_any)
  message(FATAL_ERROR "references to files outside the repository:${found_any}")
endif()
message(STATUS "self-contained: no reference outside the repository")
