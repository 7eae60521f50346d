#!/usr/bin/env bash
# Installs what the build needs, builds the main job (Release) and runs it: the key-strategy
# comparison on disk (partkv-bench: the same workload written under each partition-key strategy,
# against raw RocksDB on the same bytes). It prints its tables and writes partkv-compare.csv and
# partkv-compare.html into $build/compare, and prints their paths.
# Only the library and partkv-bench are built, not the tests (tools/test.sh builds everything).
# Arguments go to partkv-bench (--events N, --days D, --seed S, --partitions P, --sweep; --help).
# Usage: bash tools/run.sh [PARTKV_BENCH_FLAGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh build
build=${PARTKV_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPARTKV_BUILD_TESTS=OFF -DPARTKV_BUILD_BENCH=OFF
cmake --build "$build" -j2 --target partkv-bench
"$build"/tools/bench/partkv-bench --out "$build/compare" "$@"
