#!/usr/bin/env bash
# Installs the pinned Azurite (package-lock.json beside this script) into DIR with `npm ci`, once
# per lock file: a stamp in DIR/node_modules records the lock that was installed, so a run whose
# lock has not changed does nothing. The tests start DIR/node_modules/azurite themselves
# (tests/testing/endpoint_server.h).
#
#   bash tests/engine/remote/install_azurite.sh DIR
set -euo pipefail
if [[ $# -ne 1 ]]; then
  echo "usage: install_azurite.sh DIR" >&2
  exit 2
fi
work=$1
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null || { echo "install_azurite: node is not installed (tools/deps.sh installs it)" >&2; exit 1; }
command -v npm >/dev/null || { echo "install_azurite: npm is not installed (tools/deps.sh installs it)" >&2; exit 1; }
mkdir -p "$work"
stamp="$work/node_modules/.partkv-lock"
main="$work/node_modules/azurite/dist/src/table/main.js"
if cmp -s "$here/package-lock.json" "$stamp" 2>/dev/null && [[ -f $main ]]; then
  exit 0
fi
cp "$here/package.json" "$here/package-lock.json" "$work/"
if ! (cd "$work" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error >/dev/null); then
  echo "install_azurite: npm ci failed in $work" >&2
  exit 1
fi
[[ -f $main ]] || { echo "install_azurite: $main is missing after npm ci" >&2; exit 1; }
cp "$here/package-lock.json" "$stamp"
