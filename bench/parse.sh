#!/bin/sh
# Builds and runs bench/parse (the PGN reader against pgn-extract -Wuci) from
# the repository root; the last line printed is "RATIO parse_vs_pgn_extract <x>".
#   bench/parse.sh [build-dir]
set -e
cd "$(dirname "$0")/.."
build=${1:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target bench_parse -j2 >/dev/null
exec "$build/bench/bench_parse"
