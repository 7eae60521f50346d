# Sourced by tools/ci-sanitize.sh and tools/ci-fuzz.sh: configures the clang tree both use, in
# build-asan/ (or $PARTKV_ASAN_BUILD_DIR), once for three checks:
#   - AddressSanitizer + UndefinedBehaviorSanitizer on everything, at -O1 with assertions on;
#   - clang's thread-safety analysis, its warnings as errors (docs/design.md "Locks");
#   - libFuzzer's coverage instrumentation on the library, so that the fuzz targets (built with
#     -fsanitize=fuzzer) are guided by it; the tests link the same objects, which the ASan
#     runtime's no-op coverage callbacks serve.
# Benchmarks are not built. Needs clang and libFuzzer (Debian 12: clang, libclang-rt-14-dev;
# tools/deps.sh installs them).
clang_tree=${PARTKV_ASAN_BUILD_DIR:-build-asan}
configure_clang_tree() {
  local launcher=()
  if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S . -B "$clang_tree" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DCMAKE_C_FLAGS_RELEASE=-O1 \
    "-DCMAKE_CXX_FLAGS=-gline-tables-only -Wthread-safety -Wthread-safety-beta -Werror=thread-safety" \
    -DCMAKE_C_FLAGS=-gline-tables-only \
    -DPARTKV_SANITIZE=address,undefined -DPARTKV_FUZZ_COVERAGE=ON -DPARTKV_BUILD_BENCH=OFF \
    "${launcher[@]}"
}
