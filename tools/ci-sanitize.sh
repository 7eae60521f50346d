#!/usr/bin/env bash
# Builds the whole test suite in the clang tree (tools/clang-tree.sh: AddressSanitizer +
# UndefinedBehaviorSanitizer, clang's thread-safety analysis as errors, libFuzzer coverage) and
# runs it with CTest. Any sanitizer report, and any access the thread-safety analysis finds
# unguarded, fails the run. The fuzz targets are built too, for tools/ci-fuzz.sh.
#
#   bash tools/ci-sanitize.sh
#
# Debian's librocksdb is not instrumented. That is fine for ASan: its allocator serves RocksDB's
# mallocs too and its interceptors check the memcpy/strlen family RocksDB calls, so partkv's misuse
# of RocksDB memory (a use after free of a slice, an overrun of a value) is caught, and leaks are
# found everywhere. What it cannot see is an out-of-bounds access by RocksDB's own code, and UBSan
# checks partkv's code only.
# Left to the ordinary build: install.FindPackageConsumer (an application compiled without the
# sanitizer cannot load an instrumented libpartkv) and api.OverAzurite* (the library's semantic
# suite against Azurite, a third-party server in Node: under the sanitizers it would check the
# same client code api.OverPartkvServe checks, at three minutes a run).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/clang-tree.sh
configure_clang_tree
cmake --build "$clang_tree" -j2 --target all partkv_fuzz
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$clang_tree" --output-on-failure -j2 -E '^(install\.|api\.OverAzurite)'
