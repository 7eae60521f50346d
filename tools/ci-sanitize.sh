#!/usr/bin/env bash
# Builds the whole test suite with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/
# (or $PARTKV_ASAN_BUILD_DIR) and runs it with CTest. Any sanitizer report fails the run.
#
#   bash tools/ci-sanitize.sh
#
# Debian's librocksdb is not instrumented. That is fine for ASan: its allocator serves RocksDB's
# mallocs too and its interceptors check the memcpy/strlen family RocksDB calls, so partkv's misuse
# of RocksDB memory (a use after free of a slice, an overrun of a value) is caught, and leaks are
# found everywhere. What it cannot see is an out-of-bounds access by RocksDB's own code, and UBSan
# checks partkv's code only.
# Built at -O1 with assertions on; benchmarks are not built. install.FindPackageConsumer is left
# to the ordinary build: an application compiled without the sanitizer cannot load an
# instrumented libpartkv.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PARTKV_ASAN_BUILD_DIR:-build-asan}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DCMAKE_C_FLAGS_RELEASE=-O1 \
  -DPARTKV_SANITIZE=address,undefined -DPARTKV_BUILD_BENCH=OFF
cmake --build "$build" -j2
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure -j2 -E '^install\.'
