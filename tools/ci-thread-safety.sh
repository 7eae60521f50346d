#!/usr/bin/env bash
# Builds the library and the programs with clang and its thread-safety analysis in build-tsa/ (or
# $PARTKV_TSA_BUILD_DIR): every access to a field GUARDED_BY a mutex without holding it, every
# call of a function that REQUIRES a lock without it or that EXCLUDES one with it, every lock
# taken against the declared order, and every lock not released on some path is an error
# (docs/design.md "Locks"; the annotations are in engine/port/).
#
#   bash tools/ci-thread-safety.sh
#
# tools/test.sh does not call it: the clang tree of tools/ci-sanitize.sh compiles everything with
# the same analysis as errors. This is the quick way to run the analysis alone (the library and
# the programs, unoptimised, no sanitizer): a few minutes instead of a sanitizer build.
#
# -Wthread-safety is the analysis; -Wthread-safety-beta adds the lock-order checks
# (ACQUIRED_BEFORE/AFTER). Only the thread-safety warnings are errors: the build need not be
# free of clang's other warnings. The tests are not built (they may use std::mutex directly);
# tests/engine/port/ proves that the analysis rejects an unguarded access. -O0 without debug
# information: the analysis is the compiler's front end, so nothing is gained by optimising.
# Needs clang (Debian 12: clang; tools/deps.sh installs it). Uses ccache when there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PARTKV_TSA_BUILD_DIR:-build-tsa}
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DCMAKE_C_FLAGS_DEBUG=-O0 \
  "-DCMAKE_CXX_FLAGS=-Wthread-safety -Wthread-safety-beta -Werror=thread-safety" \
  -DPARTKV_BUILD_TESTS=OFF -DPARTKV_BUILD_BENCH=OFF "${launcher[@]}"
cmake --build "$build" -j2 --target partkv_objects partkv_protocol partkv_serve partkv_cli \
  partkv-bench partkv_tools_common
echo "thread-safety: the library and the programs build under clang's analysis"
