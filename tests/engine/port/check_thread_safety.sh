#!/usr/bin/env bash
# The test port.ThreadSafetyCatchesUnguardedAccess: clang's thread-safety analysis, through the
# annotations of engine/port/, rejects a read of a GUARDED_BY field without its mutex and accepts
# the same read with the mutex held (unguarded_read.cc, compiled both ways). The second compile
# is what makes the first mean something: the failure must be the analysis's, not a broken file.
#
#   bash tests/engine/port/check_thread_safety.sh <repository>
#
# Exits 77 (skipped) when there is no clang++ ($CXX_CLANG, else clang++ on the PATH).
set -euo pipefail
root=$1
clang=${CXX_CLANG:-$(command -v clang++ || true)}
if [ -z "$clang" ]; then
  echo "clang++ not found: skipped"
  exit 77
fi
source=$root/tests/engine/port/unguarded_read.cc
flags=(-std=c++20 -fsyntax-only -Wthread-safety -Werror "-I$root")

if output=$("$clang" "${flags[@]}" "$source" 2>&1); then
  echo "FAIL: the unguarded read compiled; the analysis did not see the annotations"
  exit 1
fi
if ! grep -q "reading variable 'value_' requires holding mutex 'mu_'" <<<"$output"; then
  echo "FAIL: the unguarded read failed to compile, but not with the thread-safety diagnostic:"
  echo "$output"
  exit 1
fi
echo "unguarded read rejected:"
echo "$output" | grep -- "-Wthread-safety"

if ! output=$("$clang" "${flags[@]}" -DPARTKV_TAKE_LOCK "$source" 2>&1); then
  echo "FAIL: the read under the mutex did not compile:"
  echo "$output"
  exit 1
fi
echo "the read under the mutex compiles cleanly"
