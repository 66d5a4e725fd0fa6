#!/usr/bin/env bash
# Builds graphbook in Debug (assert() active) with the address and
# undefined-behaviour sanitizers in ./build-debug and runs the default suite
# there (the tests tagged slow are left out, as in scripts/test.sh). Run after
# scripts/test.sh, which installs what the build needs. Only the binary and the
# test executables are built (not bench/ or data/): the suite runs nothing else.
# A sanitizer report fails the test that triggered it: ASan aborts, and UBSan
# is made to abort too (halt_on_error).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-debug -DCMAKE_BUILD_TYPE=Debug -DGRAPHBOOK_SANITIZE=ON -DGRAPHBOOK_NATIVE=OFF >/dev/null
mapfile -t targets < <(cmake --build build-debug --target help | sed -n -E 's/^\.\.\. (graphbook|test_[A-Za-z0-9_-]+)$/\1/p')
if [ ${#targets[@]} -eq 0 ]; then targets=(all); fi  # a generator without a help target
cmake --build build-debug -j"$(nproc)" --target "${targets[@]}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --test-dir build-debug -LE slow --output-on-failure -j"$(nproc)"
