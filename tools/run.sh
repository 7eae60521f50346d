#!/usr/bin/env bash
# Installs the dependencies, builds partkv (Release) and runs the main job.
# Usage: bash tools/run.sh [STORE_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
build=${PARTKV_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j2
"$build"/tools/partkv-demo "${1:-$build/demo-store}"
