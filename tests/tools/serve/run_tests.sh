#!/usr/bin/env bash
# Runs the `partkv serve` test suite (tests/tools/serve/*.test.mjs) with Node's test runner against the
# given partkv binary. Installs the pinned @azure/data-tables (package-lock.json) with `npm ci`
# into WORK_DIR, once per lock file. Each test file starts and stops its own server on a free
# loopback port over a fresh temporary store (harness.mjs).
#
#   bash tests/tools/serve/run_tests.sh PATH/TO/partkv WORK_DIR
set -euo pipefail
bin=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null || { echo "serve tests: node is not installed (tools/deps.sh installs it)" >&2; exit 1; }
command -v npm >/dev/null || { echo "serve tests: npm is not installed (tools/deps.sh installs it)" >&2; exit 1; }
mkdir -p "$work"
stamp="$work/node_modules/.partkv-lock"
if ! cmp -s "$here/package-lock.json" "$stamp" 2>/dev/null; then
  cp "$here/package.json" "$here/package-lock.json" "$work/"
  (cd "$work" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error)
  cp "$here/package-lock.json" "$stamp"
fi
cp "$here"/*.mjs "$work/"
cd "$work"
export PARTKV_BIN=$bin
exec node --test --test-concurrency=2 --test-reporter=spec ./*.test.mjs
