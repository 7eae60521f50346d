#!/usr/bin/env bash
# Installs the dependencies, builds partkv (Release) and runs the main job: the key-strategy
# comparison on disk (partkv-bench: the same workload written under each partition-key strategy,
# against raw RocksDB on the same bytes). It prints its tables and writes partkv-compare.csv and
# partkv-compare.html into $build/compare, and prints their paths.
# Arguments go to partkv-bench (--events N, --days D, --seed S, --partitions P, --sweep; --help).
# The library demo is still built: $build/tools/partkv-demo STORE_DIR.
# Usage: bash tools/run.sh [PARTKV_BENCH_FLAGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
build=${PARTKV_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j2
"$build"/tools/bench/partkv-bench --out "$build/compare" "$@"
