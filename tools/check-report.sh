#!/usr/bin/env bash
# Checks that a partkv-bench HTML report renders in a real browser (Debian's headless chromium):
# the page loads, its self-check script ran without errors and found one partition-heat <svg> per
# strategy and its charts, chromium logged no script error, and the page asked for nothing over
# the network. Optionally saves a screenshot to look at.
#
# Usage:
#   bash tools/check-report.sh REPORT.html [--screenshot OUT.png]
#   bash tools/check-report.sh --run PARTKV_BENCH [--screenshot OUT.png]
#       (runs PARTKV_BENCH at a tiny size into a temporary directory and checks its report)
#   bash tools/check-report.sh --run-data PARTKV_BENCH [--screenshot OUT.png]
#       (the same on 2,000 orders of bench/data/make-orders.sh, with the user's strategies, reads
#       and --suggest: the report of --data)
#
# Exit status: 0 the report renders, 1 it does not, 2 bad usage, 77 chromium is not installed
# (skipped; CTest reads 77 as "skipped").
set -euo pipefail

usage() {
  echo "usage: $0 REPORT.html | --run PARTKV_BENCH | --run-data PARTKV_BENCH  [--screenshot OUT.png]" >&2
  exit 2
}

report="" bench="" screenshot="" data=0
while [ $# -gt 0 ]; do
  case "$1" in
    --run) [ $# -ge 2 ] || usage; bench=$2; shift 2 ;;
    --run-data) [ $# -ge 2 ] || usage; bench=$2; data=1; shift 2 ;;
    --screenshot) [ $# -ge 2 ] || usage; screenshot=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "check-report: unknown option $1" >&2; usage ;;
    *) [ -z "$report" ] || usage; report=$1; shift ;;
  esac
done
[ -n "$report" ] || [ -n "$bench" ] || usage
[ -z "$report" ] || [ -z "$bench" ] || usage

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  echo "check-report: skipped: chromium is not installed (Debian: apt-get install chromium)" >&2
  exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/partkv-check-report-XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ -n "$bench" ] && [ "$data" -eq 1 ]; then
  bash "$(dirname "$0")/../bench/data/make-orders.sh" --orders 2000 --days 3 >"$work/orders.jsonl"
  "$bench" --data "$work/orders.jsonl" --time orderTime --row-key 'concat(orderId)' \
    --strategy 'concat(orderDate)' --strategy 'md5-bits(region,3)' \
    --read 'by-customer=customerId@5' --read 'by-day=orderDate' --suggest \
    --out "$work/report" --work-dir "$work" >"$work/bench.out"
  report="$work/report/partkv-compare.html"
elif [ -n "$bench" ]; then
  "$bench" --events 2000 --days 2 --out "$work/report" --work-dir "$work" >"$work/bench.out"
  report="$work/report/partkv-compare.html"
fi
[ -f "$report" ] || { echo "check-report: no such file: $report" >&2; exit 1; }
url="file://$(cd "$(dirname "$report")" && pwd)/$(basename "$report")"

browse() {
  # A fresh profile each time; no network, no background services, no first-run pages.
  local profile
  profile=$(mktemp -d "$work/profile-XXXXXX")
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --enable-logging=stderr --v=0 "$@" "$url"
}

browse --dump-dom >"$work/dom.html" 2>"$work/chromium.log" || {
  echo "check-report: chromium failed on $report:" >&2
  tail -5 "$work/chromium.log" >&2
  exit 1
}

failed=0
fail() {
  echo "check-report: $*" >&2
  failed=1
}

check=$(grep -o 'data-report-check="[^"]*"' "$work/dom.html" | head -1 |
  sed 's/^data-report-check="//; s/"$//' || true)
case "$check" in
  ok:*) ;;
  "") fail "the report's self-check did not run (no data-report-check on <html>)" ;;
  *) fail "the report's self-check failed: $check" ;;
esac

# One heat histogram per strategy, as the self-check counted them, and each strategy once.
strategies=$(sed -n 's/^ok: \([0-9]*\) strategies.*/\1/p' <<<"$check" || true)
heat=$({ grep -o '<svg class="heat" data-strategy="[^"]*"' "$work/dom.html" || true; } | sort -u | wc -l)
if [ -z "$strategies" ] || [ "$strategies" -lt 1 ] || [ "$heat" -ne "$strategies" ]; then
  fail "expected one heat <svg> per strategy: ${strategies:-?} strategies, $heat distinct heat histograms"
fi

# Script errors and resource loads chromium logged (its own dbus/GPU chatter is not ours).
if grep -E 'CONSOLE|Uncaught|net::ERR_' "$work/chromium.log" | grep -v 'dbus' >"$work/errors.log"; then
  fail "chromium reported errors for the page:"
  head -5 "$work/errors.log" >&2
fi

if [ -n "$screenshot" ]; then
  browse --hide-scrollbars --window-size=1280,4600 --screenshot="$(realpath -m "$screenshot")" \
    >/dev/null 2>&1 || fail "chromium could not take the screenshot"
fi

if [ "$failed" -ne 0 ]; then exit 1; fi
echo "check-report: $report renders: $check${screenshot:+ (screenshot: $screenshot)}"
