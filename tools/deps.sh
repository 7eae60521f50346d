#!/usr/bin/env bash
# Installs partkv's dependencies from Debian's archive (Debian 12, as root). Does nothing when
# everything is already installed.
# Usage: bash tools/deps.sh [build|all]
#   build  what building the library and the programs needs (tools/run.sh)
#   all    that, and what the tests need: GoogleTest, Google Benchmark, clang, Valgrind, Python,
#          Chromium, Node.js (tools/test.sh; the default)
set -euo pipefail
what=${1:-all}
packages=(
  ca-certificates cmake g++ make pkg-config git
  librocksdb-dev libfmt-dev libxxhash-dev libssl-dev libcurl4-openssl-dev openssl
  nlohmann-json3-dev libcli11-dev libsimdjson-dev libboost1.81-dev libexpat1-dev
)
if [ "$what" = all ]; then
  packages+=(
    libgtest-dev libgmock-dev libbenchmark-dev
    clang libclang-rt-14-dev clang-format chromium
    valgrind python3 python3-cffi python3-pytest libpython3-dev python3-lmdb python3-plyvel
  )
elif [ "$what" != build ]; then
  echo "usage: bash tools/deps.sh [build|all]" >&2
  exit 2
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The `partkv serve` tests run Node (tests/tools/serve/): Debian's nodejs and npm, unless a node
# is already installed.
if [ "$what" = all ] && { ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; }; then
  echo "deps: installing nodejs npm" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
