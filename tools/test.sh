#!/usr/bin/env bash
# Installs the dependencies, builds partkv (Release) and runs the whole test suite with CTest.
# Usage: bash tools/test.sh            (build directory: ./build, or $PARTKV_BUILD_DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
build=${PARTKV_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPARTKV_BUILD_TESTS=ON -DPARTKV_BUILD_BENCH=ON
cmake --build "$build" -j2
ctest --test-dir "$build" --output-on-failure -j2
# The library and the programs under clang's thread-safety analysis (build-tsa/, docs/design.md
# "Locks"), then the suite again under AddressSanitizer + UndefinedBehaviorSanitizer
# (build-asan/), then each fuzz target for a bounded time (clang + libFuzzer, build-fuzz/). Long
# modes: docs/errors.md.
bash tools/ci-thread-safety.sh
bash tools/ci-sanitize.sh
bash tools/ci-fuzz.sh
