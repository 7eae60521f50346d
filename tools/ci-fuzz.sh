#!/usr/bin/env bash
# Runs each libFuzzer target (tests/fuzz/) for a bounded time, built in the clang tree
# (tools/clang-tree.sh: clang, AddressSanitizer, UndefinedBehaviorSanitizer, the library with
# coverage instrumentation): no crash, no leak, no hang, no violated property. Prints executions
# per target. Builds the targets first when tools/ci-sanitize.sh has not.
#
#   bash tools/ci-fuzz.sh                          25 s per target (CI)
#   PARTKV_FUZZ_SECONDS=3600 bash tools/ci-fuzz.sh  long mode
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/clang-tree.sh
configure_clang_tree
cmake --build "$clang_tree" -j2 --target partkv_fuzz
bash tests/fuzz/run.sh "$clang_tree" "${PARTKV_FUZZ_SECONDS:-25}"
