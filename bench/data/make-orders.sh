#!/usr/bin/env bash
# Writes an orders data set as JSON Lines (the format `partkv export` writes, without keys) to
# stdout, for partkv-bench --data: the README's worked example and the 1 GB memory check.
#
#   bash bench/data/make-orders.sh [--orders N] [--days D] [--customers C] [--bytes B] [--seed S]
#
# Each order: orderId (ORD-00000001 … in time order, unique), customerId (C000042; a few
# customers order much more than most: a power law), region (six, unevenly: eu-west holds 40 %),
# orderDate (yyyy-mm-dd, from 2026-11-02), orderTime (Edm.DateTime, a diurnal curve with a
# lunchtime peak and a burst on the middle day's evening), amount (Double), items (Int32),
# status, and a note padding each line to about B bytes (default 300; 1000 makes 1,000,000 orders
# about 1 GB). Defaults: 100,000 orders over 14 days, 20,000 customers, seed 1. Deterministic for
# a given seed and awk.
set -euo pipefail
orders=100000 days=14 customers=20000 bytes=300 seed=1
while [ $# -gt 0 ]; do
  case "$1" in
    --orders) orders=$2; shift 2 ;;
    --days) days=$2; shift 2 ;;
    --customers) customers=$2; shift 2 ;;
    --bytes) bytes=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    *) echo "usage: $0 [--orders N] [--days D] [--customers C] [--bytes B] [--seed S]" >&2; exit 2 ;;
  esac
done
for v in "$orders" "$days" "$customers" "$bytes" "$seed"; do
  case "$v" in ''|*[!0-9]*) echo "make-orders: '$v' is not a whole number" >&2; exit 2 ;; esac
done
[ "$orders" -ge 1 ] && [ "$days" -ge 1 ] && [ "$days" -le 28 ] && [ "$customers" -ge 1 ] || {
  echo "make-orders: need --orders ≥ 1, --days 1..28, --customers ≥ 1" >&2; exit 2; }

exec awk -v orders="$orders" -v days="$days" -v customers="$customers" -v bytes="$bytes" \
  -v seed="$seed" '
BEGIN {
  srand(seed)
  split("eu-west eu-west eu-west eu-west us-east us-east us-west ap-south ap-east sa-east", region, " ")
  split("placed paid packed shipped delivered", status, " ")
  # Hour weights: quiet at night, a lunchtime peak, an evening peak.
  split("1 1 1 1 1 2 4 6 8 9 10 12 14 12 10 9 9 10 12 11 8 5 3 2", hw, " ")
  total = 0
  for (d = 0; d < days; d++) for (h = 0; h < 24; h++) {
    w = hw[h + 1]
    if (d == int(days / 2) && h == 19) w *= 6  # the burst
    if ((d % 7) >= 5) w *= 0.6                 # weekends
    weight[d * 24 + h] = w; total += w
  }
  pad = ""
  for (i = 0; i < 4096; i++) pad = pad substr("abcdefghijklmnopqrstuvwxyz ", 1 + int(rand() * 27), 1)
  n = 0
  for (slot = 0; slot < days * 24 && n < orders; slot++) {
    count = int(orders * weight[slot] / total + 0.5)
    if (slot == days * 24 - 1) count = orders - n
    for (k = 0; k < count && n < orders; k++) {
      n++
      d = int(slot / 24); h = slot % 24
      second = int((k + 0.5) * 3600 / count)
      c = int(customers * (rand() ^ 3))
      line = sprintf("{\"orderId\":\"ORD-%08d\",\"customerId\":\"C%06d\",\"region\":\"%s\"," \
                     "\"orderDate\":\"2026-11-%02d\",\"orderTime\":\"2026-11-%02dT%02d:%02d:%02d.0000000Z\"," \
                     "\"orderTime@odata.type\":\"Edm.DateTime\",\"amount\":%.2f,\"items\":%d," \
                     "\"status\":\"%s\"", n, c, region[1 + int(rand() * 10)], 2 + d, 2 + d, h,
                     int(second / 60), second % 60, 5 + rand() * 495, 1 + int(rand() * 9),
                     status[1 + int(rand() * 5)])
      want = bytes - length(line) - 12
      if (want < 0) want = 0
      start = 1 + int(rand() * 2048)
      printf "%s,\"note\":\"%s\"}\n", line, substr(pad, start, want)
    }
  }
}'
