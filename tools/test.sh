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
# Then one clang tree (build-asan/, tools/clang-tree.sh) for three checks: the suite again under
# AddressSanitizer + UndefinedBehaviorSanitizer, compiled with clang's thread-safety analysis as
# errors (docs/design.md "Locks"), then each fuzz target for a bounded time. Long modes:
# docs/errors.md.
bash tools/ci-sanitize.sh
bash tools/ci-fuzz.sh
