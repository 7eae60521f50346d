#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time and reports the executions of each.
#
#   bash tests/fuzz/run.sh BUILD_DIR [SECONDS_PER_TARGET]
#
# BUILD_DIR is a clang build with the fuzz targets built (tools/ci-fuzz.sh makes one). The time
# per target defaults to $PARTKV_FUZZ_SECONDS or 25 s; a long run is e.g. 3600. New inputs go to
# BUILD_DIR/fuzz-corpus/<target> (the committed seeds in tests/fuzz/corpus/ are only read);
# a crash, leak, hang (> 10 s on one input) or violated property saves the input as
# BUILD_DIR/fuzz-artifacts/<target>-crash-... and fails the run. To keep a finding as a
# regression test, copy it into tests/fuzz/corpus/<target>/ (replayed by CTest in every build).
# The summary table also goes to BUILD_DIR/fuzz-summary.txt.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR [SECONDS_PER_TARGET]}
seconds=${2:-${PARTKV_FUZZ_SECONDS:-25}}
src=$(cd "$(dirname "$0")" && pwd)
targets=(value_codec token filter key_strategy entity_json)
mkdir -p "$build/fuzz-artifacts"
summary="$build/fuzz-summary.txt"
printf '%-14s %12s %10s %8s  %s\n' target executions exec/s corpus result > "$summary"
failed=0
for t in "${targets[@]}"; do
  bin="$build/tests/fuzz/fuzz_$t"
  if [ ! -x "$bin" ]; then
    echo "fuzz: $bin is not built (configure with clang++; see tools/ci-fuzz.sh)" >&2
    exit 1
  fi
  corpus="$build/fuzz-corpus/$t"
  mkdir -p "$corpus"
  dict=()
  [ -f "$src/dict/$t.dict" ] && dict=(-dict="$src/dict/$t.dict")
  log="$build/fuzz-artifacts/$t.log"
  result=ok
  # -timeout: one input running longer is a hang; -rss_limit_mb bounds memory; ASan's leak
  # checker runs at exit and on every new input (-detect_leaks=1, the default).
  if ! ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
       "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$build/fuzz-artifacts/$t-" "${dict[@]}" \
       "$corpus" "$src/corpus/$t" > "$log" 2>&1; then
    result=FAILED
    failed=1
    grep -E "ERROR|property violated|SUMMARY|Test unit written" "$log" >&2 || tail -20 "$log" >&2
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  units=$(find "$corpus" "$src/corpus/$t" -type f | wc -l)
  printf '%-14s %12s %10s %8s  %s\n' "$t" "${runs:-?}" "${rate:-?}" "$units" "$result" >> "$summary"
done
cat "$summary"
exit $failed
