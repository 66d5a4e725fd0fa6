#!/usr/bin/env bash
# bench/compare: two graphbook binaries on bench/build's three cases, runs
# alternated (A, B, A, B, ...) so that a machine whose speed drifts over
# minutes slows both alike. Prints the minimum and the median wall time of
# each. For A/B measurements of a change; bench/build.sh is the benchmark.
#   bash bench/compare.sh OLD_BINARY NEW_BINARY [RUNS]
set -euo pipefail
a=$1 b=$2 runs=${3:-9}
data=${GRAPHBOOK_DATA:-$(cd "$(dirname "$0")" && pwd)/../../shared/data}  # the larger collections
for f in pgn/medium/tcec-standard-nocomments.pgn.zst pgn/medium/sfbooks-bjbraams_chessdb_198350_lines.pgn.zst; do
  [ -f "$data/$f" ] || { echo "bench/compare: skipped: missing $data/$f (set GRAPHBOOK_DATA)"; exit 0; }
done
work=$(mktemp -d /tmp/gb-bench-compare-XXXXXX)
trap 'rm -rf "$work"' EXIT
zstd -q -dc "$data/pgn/medium/tcec-standard-nocomments.pgn.zst" > "$work/tcec.pgn"
zstd -q -dc "$data/pgn/medium/sfbooks-bjbraams_chessdb_198350_lines.pgn.zst" > "$work/lines.pgn"

# seconds BINARY ARGS...: the wall time of one build into a new book.
seconds() {
  rm -f "$work/c.book" "$work/c.book-lock"
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}
# summary TIMES...: min and median.
summary() { printf '%s\n' "$@" | sort -n | awk '{ t[NR] = $1 } END { printf "min %.3f med %.3f", t[1], t[int((NR + 1) / 2)] }'; }

for c in "tcec.pgn 40" "lines.pgn 0" "tcec.pgn 0"; do
  read -r pgn ply <<<"$c"
  ta=() tb=()
  for _ in $(seq "$runs"); do
    ta+=("$(seconds "$a" build "$work/c.book" "$work/$pgn" --max-ply "$ply" --quiet)")
    tb+=("$(seconds "$b" build "$work/c.book" "$work/$pgn" --max-ply "$ply" --quiet)")
  done
  printf '%-10s --max-ply %-3s A %s | B %s\n' "$pgn" "$ply" "$(summary "${ta[@]}")" "$(summary "${tb[@]}")"
done
