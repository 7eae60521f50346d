#!/usr/bin/env bash
# partkv's remote client against @azure/data-tables 13.3.2: one workload (workload.h), the same
# requests through each client, against one `partkv serve` over a fresh store in a temporary
# directory on a free loopback port, in one run. Not part of CI.
#
#   bench/remote/run.sh PARTKV_BIN [--client PATH] [--rounds N] [--scale S] [--out DIR]
#
# PARTKV_BIN   the partkv tool (it serves the store)
# --client     partkv-remote-bench; default: the one in PARTKV_BIN's build tree
#              (BUILD/tools/partkv -> BUILD/bench/remote/partkv-remote-bench)
# --rounds     rounds of both clients (default 3; the first client alternates between rounds)
# --scale      multiplies every count (default 1: 10,000 inserts, 110,000 batched entities, ...)
# --out        where the CSV and each round's JSON go (default: the client's directory/results)
#
# The SDK is installed with `npm ci` from package-lock.json into the client's directory (once
# per lock). The table is printed on stdout; remote_bench.csv and the raw results go to --out.
set -euo pipefail

usage() {
  echo "usage: run.sh PARTKV_BIN [--client PATH] [--rounds N] [--scale S] [--out DIR]" >&2
  exit 2
}
die() {
  echo "run.sh: $*" >&2
  exit 1
}

[[ $# -ge 1 ]] || usage
partkv_bin=$1
shift
client="" rounds=3 scale=1 out=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --client) client=${2:?}; shift 2 ;;
    --rounds) rounds=${2:?}; shift 2 ;;
    --scale) scale=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    *) usage ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive integer, not '$rounds'"
here=$(cd "$(dirname "$0")" && pwd)
[[ -x $partkv_bin ]] || die "$partkv_bin is not an executable"
partkv_bin=$(realpath "$partkv_bin")
client=${client:-$(dirname "$partkv_bin")/../bench/remote/partkv-remote-bench}
[[ -x $client ]] || die "$client is not built (cmake --build BUILD --target partkv-remote-bench)"
client=$(realpath "$client")
work=$(dirname "$client")
out=${out:-$work/results}
mkdir -p "$out"
command -v node >/dev/null || die "node is not installed (tools/deps.sh installs it)"
command -v npm >/dev/null || die "npm is not installed (tools/deps.sh installs it)"

# The SDK, pinned by the lock, installed once per lock.
stamp=$work/node_modules/.partkv-lock
if ! cmp -s "$here/package-lock.json" "$stamp" 2>/dev/null ||
   [[ ! -d $work/node_modules/@azure/data-tables ]]; then
  cp "$here/package.json" "$here/package-lock.json" "$work/"
  (cd "$work" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error >/dev/null) ||
    die "npm ci failed in $work"
  cp "$here/package-lock.json" "$stamp"
fi
# The scripts run from beside node_modules, where Node resolves the SDK.
cp "$here/sdk_bench.mjs" "$here/report.mjs" "$work/"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/partkv-remote-bench.XXXXXX")
server=""
cleanup() {
  if [[ -n $server ]]; then
    kill -TERM "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# Port 0: the kernel picks a free one; serve prints where it listens and its connection string.
"$partkv_bin" serve --store "$tmp/store" --port 0 >"$tmp/serve.log" 2>&1 &
server=$!
endpoint=""
for _ in $(seq 300); do
  endpoint=$(sed -n 's/^connection string: //p' "$tmp/serve.log")
  [[ -n $endpoint ]] && break
  kill -0 "$server" 2>/dev/null || die "partkv serve exited: $(cat "$tmp/serve.log")"
  sleep 0.1
done
[[ -n $endpoint ]] || die "partkv serve did not start within 30 s: $(cat "$tmp/serve.log")"
[[ $endpoint == *"127.0.0.1"* ]] || die "partkv serve is not on loopback: $endpoint"

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
rm -f "$out"/partkv-*.json "$out"/sdk-*.json
progress() { if [[ -t 2 ]]; then echo "$*" >&2; fi; }
run_partkv() {
  progress "round $1: partkv"
  "$client" --endpoint "$endpoint" --prefix "cpp$1" --scale "$scale" >"$out/partkv-$1.json" ||
    die "partkv-remote-bench failed in round $1"
}
run_sdk() {
  progress "round $1: @azure/data-tables"
  (cd "$work" && node sdk_bench.mjs --endpoint "$endpoint" --prefix "sdk$1" --scale "$scale") \
    >"$out/sdk-$1.json" || die "sdk_bench.mjs failed in round $1"
}
results=()
for r in $(seq "$rounds"); do
  if (( r % 2 )); then run_partkv "$r"; run_sdk "$r"; else run_sdk "$r"; run_partkv "$r"; fi
  results+=("$out/partkv-$r.json" "$out/sdk-$r.json")
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
kill -0 "$server" 2>/dev/null || die "partkv serve died during the run: $(cat "$tmp/serve.log")"

node "$work/report.mjs" --csv "$out/remote_bench.csv" \
  --load "${load_before} before, ${load_after} after" "${results[@]}"
echo "CSV: $out/remote_bench.csv" >&2
