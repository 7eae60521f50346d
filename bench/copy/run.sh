#!/usr/bin/env bash
# `partkv copy` against the ways to move a table without it: `partkv import` of the same rows, and
# a copy written with @azure/data-tables 13.3.2 (sdk_copy.mjs), in one run, in a fresh temporary
# directory, every server a `partkv serve` on 127.0.0.1 on a free port. Not part of CI.
#
#   bench/copy/run.sh PARTKV_BIN [--rows N] [--row-bytes B] [--partitions P] [--parallel N]
#                     [--out DIR] [--work DIR] [--sdk-only]
#
# PARTKV_BIN    the partkv tool: it imports, copies, serves and exports
# --rows        entities (default 200000)
# --row-bytes   bytes of each entity's JSON line (default 1000; at most 30000)
# --partitions  PartitionKeys, the rows spread round-robin over them (default 1000: 200 rows, two
#               transactions of 100, a partition at the defaults)
# --parallel    passed to `partkv copy --parallel` (default: not passed, the command's own default)
# --out         where copy_bench.csv and copy_bench.json go (default: WORK/results)
# --work        where the SDK is installed and the Node scripts run (WORK; default below)
# --sdk-only    every step but the `partkv copy` runs (for a partkv without that command); the
#               table then shows the SDK's and the import's figures alone
#
# The steps, each timed as a process, wall seconds from its start to its exit, with its peak RSS
# and CPU seconds (/usr/bin/time -f '%M %U %S'; without it, VmHWM read from /proc while it runs,
# and no CPU); rates are rows / wall seconds. The servers' CPU is in no step's figure.
#  1. gen_rows.mjs writes the rows as JSON Lines (Strings, Int32, Int64, Double, Boolean, DateTime
#     with seven fractional digits, a padding String): untimed.
#  2. Local. `partkv import` of the file into a fresh store A (the table created first), then
#     `partkv copy` of that table from A into a fresh store B. Ratio copy / import, target >= 0.8.
#  3. Local -> serve. Server S1 over a fresh store. The SDK cannot read a local store, so its copy
#     reads the source through server S0, a second `partkv serve` over store A itself: both copies
#     read the same table in the same store and write into S1, each into a table of its own
#     (sdkcopy, then pkcopy). The SDK's extra hop (S0 serialising what partkv copy reads in
#     process) is the price of reading with the SDK, so it counts against it; on two cores S0 also
#     takes CPU from the others while the SDK copy runs. S0 must be stopped before `partkv copy`
#     opens A (a store has one process at a time), so the SDK copy runs first, into the emptier
#     store: the order favours the SDK. Ratio partkv / SDK, target >= 3.
#  4. Serve -> local. `partkv copy` of S1's table sdkcopy into a fresh local store C. The SDK cannot
#     write a local store; what a copy written with it does with the same source on the same
#     server is write into another server: sdk_copy.mjs from S1 into S2, a `partkv serve` over a
#     fresh store (the same engine as C, behind HTTP). Ratio partkv / SDK, target >= 3. Beside it,
#     the SDK listing the table alone (sdk_copy.mjs --read-only, nothing written): no copy through
#     the SDK can be faster than that, so partkv / that is the least partkv's lead can be.
#     The same read-only listing through S0 is shown for step 3.
#  5. Peak RSS of `partkv copy` local -> local, in MiB (every step's is in the table).
# Every copy is then checked: its JSON (partkv copy --json) or its output (sdk_copy.mjs) must say
# N rows read and N written, and `partkv export` of the destination must have the digest of the
# source's export (digest.mjs: every key, type and value; the store's ETag and Timestamp aside).
# Import and every copy use mode insert into tables that do not exist yet.
#
# Any failure ends the run: exit status 1 and one line on stderr. Progress goes to stderr only on
# a terminal. The SDK is installed with `npm ci` from package-lock.json into WORK, once per lock:
# by default BUILD/bench/copy when PARTKV_BIN is BUILD/tools/partkv in a CMake build tree, else
# ${XDG_CACHE_HOME:-~/.cache}/partkv-copy-bench.
set -euo pipefail

usage() {
  echo "usage: run.sh PARTKV_BIN [--rows N] [--row-bytes B] [--partitions P] [--parallel N] [--out DIR] [--work DIR] [--sdk-only]" >&2
  exit 2
}
die() {
  echo "run.sh: $*" >&2
  exit 1
}
# The last line a failed command wrote on stderr, for die's one line.
last_line() { tail -n 1 "$1" 2>/dev/null | tr -d '\r' | cut -c1-400; }

[[ $# -ge 1 ]] || usage
partkv_bin=$1
shift
rows=200000 row_bytes=1000 partitions=1000 parallel="" out="" work="" sdk_only=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --rows) rows=${2:?}; shift 2 ;;
    --row-bytes) row_bytes=${2:?}; shift 2 ;;
    --partitions) partitions=${2:?}; shift 2 ;;
    --parallel) parallel=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --work) work=${2:?}; shift 2 ;;
    --sdk-only) sdk_only=1; shift ;;
    *) usage ;;
  esac
done
for v in rows row_bytes partitions; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--${v/_/-} must be a positive integer, not '${!v}'"
done
(( row_bytes <= 30000 )) || die "--row-bytes must be at most 30000"
[[ -z $parallel || $parallel =~ ^[1-9][0-9]*$ ]] || die "--parallel must be a positive integer"
here=$(cd "$(dirname "$0")" && pwd)
[[ -x $partkv_bin && -f $partkv_bin ]] || die "$partkv_bin is not an executable"
partkv_bin=$(realpath "$partkv_bin")
command -v node >/dev/null || die "node is not installed (tools/deps.sh installs it)"
command -v npm >/dev/null || die "npm is not installed (tools/deps.sh installs it)"
if (( ! sdk_only )) && ! "$partkv_bin" copy --help >/dev/null 2>&1; then
  die "partkv copy is not available in $partkv_bin (--sdk-only runs every other step)"
fi

build=$(dirname "$(dirname "$partkv_bin")")
if [[ -z $work && -f $build/CMakeCache.txt ]]; then
  work=$build/bench/copy
elif [[ -z $work ]]; then
  work=${XDG_CACHE_HOME:-$HOME/.cache}/partkv-copy-bench
fi
mkdir -p "$work"
work=$(realpath "$work")
out=${out:-$work/results}
mkdir -p "$out"
out=$(realpath "$out")

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
cp "$here/gen_rows.mjs" "$here/sdk_copy.mjs" "$here/digest.mjs" "$here/report.mjs" "$work/"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/partkv-copy-bench.XXXXXX")
# partkv import stages its rows in $TMPDIR: inside the run's directory, removed with it.
export TMPDIR=$tmp
declare -A server_pid=() server_conn=()
cleanup() {
  local name
  for name in "${!server_pid[@]}"; do
    kill -TERM "${server_pid[$name]}" 2>/dev/null || true
  done
  for name in "${!server_pid[@]}"; do
    wait "${server_pid[$name]}" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

progress() { if [[ -t 2 ]]; then echo "$*" >&2; fi; }

# start_serve NAME STORE: a `partkv serve` over STORE on a free loopback port; its connection
# string in server_conn[NAME].
start_serve() {
  local name=$1 store=$2 log=$tmp/serve-$1.log conn="" pid
  "$partkv_bin" serve --store "$store" --host 127.0.0.1 --port 0 >"$log" 2>&1 &
  pid=$!
  server_pid[$name]=$pid
  for _ in $(seq 300); do
    conn=$(sed -n 's/^connection string: //p' "$log")
    [[ -n $conn ]] && break
    kill -0 "$pid" 2>/dev/null || die "partkv serve ($name) exited: $(last_line "$log")"
    sleep 0.1
  done
  [[ -n $conn ]] || die "partkv serve ($name) did not start within 30 s: $(last_line "$log")"
  [[ $conn == *"TableEndpoint=http://127.0.0.1:"* ]] || die "partkv serve ($name) is not on loopback: $conn"
  server_conn[$name]=$conn
}
alive() {
  kill -0 "${server_pid[$1]}" 2>/dev/null ||
    die "partkv serve ($1) died: $(last_line "$tmp/serve-$1.log")"
}
stop_serve() {
  local name=$1 status=0
  alive "$name"
  kill -TERM "${server_pid[$name]}"
  wait "${server_pid[$name]}" || status=$?
  unset "server_pid[$name]"
  (( status == 0 )) || die "partkv serve ($name) exited with status $status on SIGTERM: $(last_line "$tmp/serve-$name.log")"
}

# measure ID ROWS CMD...: runs CMD (stdout to $tmp/ID.out, stderr to $tmp/ID.err) and appends
# ID, ROWS, its wall microseconds, its peak RSS in KiB and its CPU seconds (user + system; empty
# without /usr/bin/time) to $tmp/measure.tsv. Fails as CMD fails.
time_bin=""
if [[ -x /usr/bin/time ]] && /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then
  time_bin=/usr/bin/time
fi
measure() {
  local id=$1 n=$2 t0 t1 rss=0 cpu="" pid v status=0
  shift 2
  progress "  $id"
  t0=$(date +%s%N)
  if [[ -n $time_bin ]]; then
    "$time_bin" -f '%M %U %S' -o "$tmp/$id.time" "$@" >"$tmp/$id.out" 2>"$tmp/$id.err" || status=$?
    t1=$(date +%s%N)
    read -r rss v cpu < <(tail -n 1 "$tmp/$id.time")
    cpu=$(awk -v u="$v" -v s="$cpu" 'BEGIN { printf "%.2f", u + s }')
  else
    "$@" >"$tmp/$id.out" 2>"$tmp/$id.err" &
    pid=$!
    while [[ -r /proc/$pid/status ]] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; do
      v=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
      [[ -n $v ]] && rss=$v
      sleep 0.05
    done
    wait "$pid" || status=$?
    t1=$(date +%s%N)
  fi
  (( status == 0 )) || return "$status"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$n" "$(( (t1 - t0) / 1000 ))" "$rss" "$cpu" "$tmp/$id.out" \
    >>"$tmp/measure.tsv"
}

# json_field FILE NAME: the member NAME of the one JSON document in FILE (empty when absent).
json_field() {
  node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
           const v = d[process.argv[2]]; process.stdout.write(v === undefined ? "" : String(v));' \
    "$1" "$2" 2>/dev/null || true
}
# check_counts ID WHAT: the copy's own report says every row read and written.
check_counts() {
  local id=$1 what=$2 r w
  r=$(json_field "$tmp/$id.out" rows_read)
  w=$(json_field "$tmp/$id.out" rows_written)
  [[ -n $r && -n $w ]] || die "$what printed no JSON document with rows_read and rows_written: $(head -c 200 "$tmp/$id.out")"
  [[ $r == "$rows" && $w == "$rows" ]] || die "$what read $r and wrote $w rows, not $rows"
}
# digest_of LOCATION TABLE: digest.mjs of `partkv export`.
digest_of() {
  local d
  d=$("$partkv_bin" --store "$1" export "$2" 2>"$tmp/export.err" | node "$work/digest.mjs") ||
    die "partkv export of $2 failed: $(last_line "$tmp/export.err")"
  [[ -s $tmp/export.err ]] && die "partkv export of $2: $(last_line "$tmp/export.err")"
  echo "$d"
}
# verify WHAT LOCATION TABLE: the destination holds exactly the source's entities.
verify() {
  local d
  d=$(digest_of "$2" "$3")
  [[ $d == "$source_digest" ]] || die "$1: the destination's export differs from the source's ($d, not $source_digest)"
}
copy_flags=(--mode insert --json)
[[ -n $parallel ]] && copy_flags+=(--parallel "$parallel")
# The commands measure runs (programs, not functions: /usr/bin/time executes them).
partkv_copy=("$partkv_bin" copy "${copy_flags[@]}")
sdk_copy=(node "$work/sdk_copy.mjs")

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$tmp/measure.tsv"

# 1. The rows.
progress "generating $rows rows of $row_bytes bytes over $partitions partitions"
node "$work/gen_rows.mjs" --rows "$rows" --row-bytes "$row_bytes" --partitions "$partitions" \
  >"$tmp/rows.jsonl" 2>"$tmp/gen.err" || die "gen_rows.mjs failed: $(last_line "$tmp/gen.err")"

# 2. Local: import, then copy local -> local.
progress "local"
"$partkv_bin" --store "$tmp/A" table create bench >/dev/null 2>"$tmp/create.err" ||
  die "partkv table create failed: $(last_line "$tmp/create.err")"
measure import "$rows" "$partkv_bin" --store "$tmp/A" import bench "$tmp/rows.jsonl" ||
  die "partkv import failed: $(last_line "$tmp/import.err")"
source_digest=$(digest_of "$tmp/A" bench)
[[ $(json_field <(echo "$source_digest") rows) == "$rows" ]] ||
  die "the imported table holds $(json_field <(echo "$source_digest") rows) rows, not $rows"
if (( ! sdk_only )); then
  measure copy_local_local "$rows" "${partkv_copy[@]}" --from "$tmp/A" --to "$tmp/B" bench ||
    die "partkv copy local -> local failed: $(last_line "$tmp/copy_local_local.err")"
  check_counts copy_local_local "partkv copy local -> local"
  verify "partkv copy local -> local" "$tmp/B" bench
fi

# 3. Local -> serve.
progress "local -> serve"
start_serve S1 "$tmp/S1"
start_serve S0 "$tmp/A"
measure sdk_list_s0 "$rows" "${sdk_copy[@]}" --from "${server_conn[S0]}" --table bench --read-only ||
  die "sdk_copy.mjs --read-only (S0) failed: $(last_line "$tmp/sdk_list_s0.err")"
[[ $(json_field "$tmp/sdk_list_s0.out" rows_read) == "$rows" ]] ||
  die "sdk_copy.mjs --read-only (S0) read $(json_field "$tmp/sdk_list_s0.out" rows_read) rows, not $rows"
measure sdk_local_serve "$rows" "${sdk_copy[@]}" --from "${server_conn[S0]}" --to "${server_conn[S1]}" \
  --table bench --as sdkcopy --in-flight 16 ||
  die "sdk_copy.mjs S0 -> S1 failed: $(last_line "$tmp/sdk_local_serve.err")"
check_counts sdk_local_serve "sdk_copy.mjs S0 -> S1"
stop_serve S0
alive S1
if (( ! sdk_only )); then
  measure copy_local_serve "$rows" "${partkv_copy[@]}" --from "$tmp/A" --to "${server_conn[S1]}" bench --as pkcopy ||
    die "partkv copy local -> serve failed: $(last_line "$tmp/copy_local_serve.err")"
  check_counts copy_local_serve "partkv copy local -> serve"
  alive S1
  verify "partkv copy local -> serve" "${server_conn[S1]}" pkcopy
fi
verify "sdk_copy.mjs S0 -> S1" "${server_conn[S1]}" sdkcopy

# 4. Serve -> local (and, for the SDK, serve -> serve).
progress "serve -> local"
start_serve S2 "$tmp/S2"
if (( ! sdk_only )); then
  measure copy_serve_local "$rows" "${partkv_copy[@]}" --from "${server_conn[S1]}" --to "$tmp/C" sdkcopy --as bench ||
    die "partkv copy serve -> local failed: $(last_line "$tmp/copy_serve_local.err")"
  check_counts copy_serve_local "partkv copy serve -> local"
  verify "partkv copy serve -> local" "$tmp/C" bench
fi
measure sdk_list_s1 "$rows" "${sdk_copy[@]}" --from "${server_conn[S1]}" --table sdkcopy --read-only ||
  die "sdk_copy.mjs --read-only (S1) failed: $(last_line "$tmp/sdk_list_s1.err")"
[[ $(json_field "$tmp/sdk_list_s1.out" rows_read) == "$rows" ]] ||
  die "sdk_copy.mjs --read-only (S1) read $(json_field "$tmp/sdk_list_s1.out" rows_read) rows, not $rows"
measure sdk_serve_serve "$rows" "${sdk_copy[@]}" --from "${server_conn[S1]}" --to "${server_conn[S2]}" \
  --table sdkcopy --as sdkcopy --in-flight 16 ||
  die "sdk_copy.mjs S1 -> S2 failed: $(last_line "$tmp/sdk_serve_serve.err")"
check_counts sdk_serve_serve "sdk_copy.mjs S1 -> S2"
alive S1
alive S2
verify "sdk_copy.mjs S1 -> S2" "${server_conn[S2]}" sdkcopy
stop_serve S2
stop_serve S1
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# 5. The table.
report_flags=(--measures "$tmp/measure.tsv" --out "$out" --rows "$rows" --row-bytes "$row_bytes"
              --partitions "$partitions" --parallel "${parallel:-default}"
              --load "${load_before} before, ${load_after} after")
(( sdk_only )) && report_flags+=(--sdk-only)
node "$work/report.mjs" "${report_flags[@]}" 2>"$tmp/report.err" ||
  die "report.mjs failed: $(last_line "$tmp/report.err")"
echo "CSV: $out/copy_bench.csv, JSON: $out/copy_bench.json" >&2
