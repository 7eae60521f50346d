#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/) with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in build-fuzz/ (or $PARTKV_FUZZ_BUILD_DIR) and runs each for a
# bounded time: no crash, no leak, no hang, no violated property. Prints executions per target.
#
#   bash tools/ci-fuzz.sh                          25 s per target (CI)
#   PARTKV_FUZZ_SECONDS=3600 bash tools/ci-fuzz.sh  long mode
#
# Needs clang and libFuzzer (Debian 12: clang, libclang-rt-14-dev; tools/deps.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PARTKV_FUZZ_BUILD_DIR:-build-fuzz}
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS=-gline-tables-only -DPARTKV_SANITIZE=address,undefined \
  -DPARTKV_BUILD_BENCH=OFF -DPARTKV_BUILD_TOOLS=OFF -DPARTKV_FUZZ_COVERAGE=ON
cmake --build "$build" -j2 --target partkv_fuzz
bash tests/fuzz/run.sh "$build" "${PARTKV_FUZZ_SECONDS:-25}"
