#!/usr/bin/env bash
# `partkv sync --push` of N changes from a local table's change feed to `partkv serve`, against
# `partkv copy` of the same rows to the same server, in one run, in a fresh temporary directory,
# the server on 127.0.0.1 on a free port. Then a sync with nothing to do, and its requests.
# Not part of CI.
#
#   bench/sync/run.sh PARTKV_BIN [--rows N] [--partitions P] [--rounds R]
#
# PARTKV_BIN    the partkv tool: it imports, copies, syncs and serves
# --rows        entities per round (default 100000), about 300 bytes each
# --partitions  PartitionKeys, the rows spread round-robin over them (default 1000)
# --rounds      rounds (default 3); the copy runs first in odd rounds, the sync first in even ones
#
# Each round: a local table Rows<k> with a change feed is created and synced once while empty (the
# pair's first push, which sends nothing and sets its feed position); the rows are imported into
# it (`partkv import`: N changes in the feed); then, timed as processes (wall seconds):
#   copy   `partkv copy --from LOCAL --to SERVE Rows<k> --as Copy<k>` (mode insert, default streams)
#   sync   `partkv --store LOCAL sync Rows<k> --remote SERVE --remote-table Sync<k> --push`
# both into tables of their own on the one server. Ratio sync / copy (rows per second), target
# >= 0.5. Every sync's --json must say N pushed and no conflict; a second sync of the pair must
# push and pull nothing, and its remote_requests is reported (target <= 2 per table).
set -euo pipefail

usage() {
  echo "usage: run.sh PARTKV_BIN [--rows N] [--partitions P] [--rounds R]" >&2
  exit 2
}
die() {
  echo "run.sh: $*" >&2
  exit 1
}
last_line() { tail -n 1 "$1" 2>/dev/null || true; }

[[ $# -ge 1 ]] || usage
partkv_bin=$(realpath "$1")
shift
rows=100000
partitions=1000
rounds=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --rows) rows=$2; shift 2 ;;
    --partitions) partitions=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) usage ;;
  esac
done
[[ -x $partkv_bin ]] || die "$partkv_bin is not executable"
command -v python3 >/dev/null || die "python3 is needed to generate rows and read reports"

tmp=$(mktemp -d)
server_pid=""
cleanup() {
  [[ -n $server_pid ]] && kill -TERM "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
export TMPDIR=$tmp

python3 - "$rows" "$partitions" >"$tmp/rows.jsonl" <<'EOF'
import json, sys
rows, parts = int(sys.argv[1]), int(sys.argv[2])
pad = "x" * 200
for i in range(rows):
    print(json.dumps({"PartitionKey": "p%05d" % (i % parts), "RowKey": "r%08d" % i,
                      "N": i, "Half": i / 2, "Text": "row %d %s" % (i, pad)}))
EOF

local_store=$tmp/local
mkdir -p "$tmp/remote"
"$partkv_bin" serve --store "$tmp/remote" --host 127.0.0.1 --port 0 >"$tmp/serve.log" 2>&1 &
server_pid=$!
conn=""
for _ in $(seq 300); do
  conn=$(sed -n 's/^connection string: //p' "$tmp/serve.log")
  [[ -n $conn ]] && break
  kill -0 "$server_pid" 2>/dev/null || die "partkv serve exited: $(last_line "$tmp/serve.log")"
  sleep 0.1
done
[[ -n $conn ]] || die "partkv serve did not start: $(last_line "$tmp/serve.log")"
[[ $conn == *"TableEndpoint=http://127.0.0.1:"* ]] || die "partkv serve is not on loopback"

# seconds CMD...: runs CMD, stdout to $tmp/last.out, and prints its wall seconds.
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >"$tmp/last.out" 2>"$tmp/last.err" || die "$* failed: $(last_line "$tmp/last.err")"
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.3f}')"
}
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$tmp/last.out" "$1"; }

printf '%-6s %10s %10s %10s %8s %9s\n' round copy_s sync_s ratio idle_req conflicts
ratios=()
for k in $(seq "$rounds"); do
  "$partkv_bin" --store "$local_store" table create "Rows$k" --change-feed >/dev/null
  "$partkv_bin" --store "$conn" table create "Sync$k" >/dev/null 2>"$tmp/create.err" ||
    die "remote table create: $(last_line "$tmp/create.err")"
  "$partkv_bin" --store "$local_store" sync "Rows$k" --remote "$conn" --remote-table "Sync$k" --push \
    --json >/dev/null 2>"$tmp/first.err" || die "first sync: $(last_line "$tmp/first.err")"
  "$partkv_bin" --store "$local_store" import "Rows$k" "$tmp/rows.jsonl" >/dev/null 2>"$tmp/import.err" ||
    die "import: $(last_line "$tmp/import.err")"
  copy() { seconds "$partkv_bin" copy --from "$local_store" --to "$conn" "Rows$k" --as "Copy$k"; }
  sync() {
    seconds "$partkv_bin" --store "$local_store" sync "Rows$k" --remote "$conn" --remote-table "Sync$k" \
      --push --json
  }
  if (( k % 2 == 1 )); then
    copy_s=$(copy)
    sync_s=$(sync)
  else
    sync_s=$(sync)
    sync_json=$(cat "$tmp/last.out")
    copy_s=$(copy)
    echo "$sync_json" >"$tmp/last.out"
  fi
  [[ $(field pushed) == "$rows" ]] || die "round $k: the sync pushed $(field pushed), not $rows"
  conflicts=$(field conflicts)
  seconds "$partkv_bin" --store "$local_store" sync "Rows$k" --remote "$conn" --remote-table "Sync$k" \
    --json >/dev/null
  idle=$(field remote_requests)
  [[ $(field pushed) == 0 && $(field pulled) == 0 ]] || die "round $k: the idle sync wrote"
  ratio=$(python3 -c "print(f'{$copy_s / $sync_s:.2f}')")
  ratios+=("$ratio")
  printf '%-6s %10s %10s %10s %8s %9s\n' "$k" "$copy_s" "$sync_s" "$ratio" "$idle" "$conflicts"
done
echo "sync push / copy, rows per second: ${ratios[*]} (target >= 0.5)"
