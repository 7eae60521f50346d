#!/usr/bin/env bash
# Runs the hostile-client suite of `partkv serve` (tests/tools/serve/hostile/*.test.mjs): clients that
# send compression bombs, endless bodies and headers, trickle bytes, hold connections, pipeline,
# sign for the wrong account, or stop reading, against the given partkv binary. Each test starts
# its own server on a free loopback port over a fresh temporary store and stops it.
#
# The suite imports ../harness.mjs, which imports the pinned @azure/data-tables: WORK_DIR gets
# harness.mjs, node_modules from tests/tools/serve/package-lock.json (`npm ci`, once per lock file) and
# the suite in WORK_DIR/hostile/. The files run one at a time: several measure the server's memory
# and timing, which a neighbour under load would blur.
#
#   bash tests/tools/serve/hostile/run_hostile.sh PATH/TO/partkv WORK_DIR [TEST_FILE...]
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
serve=$(dirname "$here")
command -v node >/dev/null || { echo "hostile tests: node is not installed (tools/deps.sh installs it)" >&2; exit 1; }
command -v npm >/dev/null || { echo "hostile tests: npm is not installed (tools/deps.sh installs it)" >&2; exit 1; }
command -v prlimit >/dev/null || { echo "hostile tests: prlimit (util-linux) is not installed" >&2; exit 1; }
mkdir -p "$work/hostile"
stamp="$work/node_modules/.partkv-lock"
if ! cmp -s "$serve/package-lock.json" "$stamp" 2>/dev/null; then
  cp "$serve/package.json" "$serve/package-lock.json" "$work/"
  (cd "$work" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error)
  cp "$serve/package-lock.json" "$stamp"
fi
cp "$serve/harness.mjs" "$work/"
rm -f "$work"/hostile/*.mjs
cp "$here"/*.mjs "$work/hostile/"
cd "$work/hostile"
export PARTKV_BIN=$bin
if [ $# -eq 0 ]; then set -- ./*.test.mjs; fi
exec node --test --test-concurrency=1 --test-reporter=spec "$@"
