#!/usr/bin/env bash
# bench/compare: two graphbook binaries on bench/build's three cases, in
# turns, each run in the state bench/build.sh measures in: right after a
# `polyglot make-book` of the same input. Prints the minimum and the median
# wall time of each, and the median CPU (user + system) seconds. For A/B
# measurements of a change; bench/build.sh is the benchmark.
#   bash bench/compare.sh OLD_BINARY NEW_BINARY [RUNS]
# WARM=1 leaves make-book out: the builds then run back to back.
#
# Why make-book first: on a virtual machine that hands freed memory back to
# its host (virtio_balloon's free page reporting, some seconds after it was
# freed), the first touch of such memory costs about 1 ms a MB on the host's
# side. A build right after another build reuses that build's memory; a
# build after make-book's seconds of work gets it fresh, and on the lines
# then takes some 0.15 s more (docs/SCALE.md, "Fresh memory"). A change
# that writes fewer bytes shows only in the second state, and bench/build.sh
# measures in it.
set -euo pipefail
a=$1 b=$2 runs=${3:-9}
pg=${POLYGLOT:-/usr/games/polyglot}
data=${GRAPHBOOK_DATA:-$(cd "$(dirname "$0")" && pwd)/../../shared/data}  # the larger collections
for f in pgn/medium/tcec-standard-nocomments.pgn.zst pgn/medium/sfbooks-bjbraams_chessdb_198350_lines.pgn.zst; do
  [ -f "$data/$f" ] || { echo "bench/compare: skipped: missing $data/$f (set GRAPHBOOK_DATA)"; exit 0; }
done
if [ -z "${WARM:-}" ] && [ ! -x "$pg" ]; then
  echo "bench/compare: $pg is missing: apt-get install polyglot (or WARM=1)" >&2
  exit 2
fi
work=$(mktemp -d /tmp/gb-bench-compare-XXXXXX)
trap 'rm -rf "$work"' EXIT
export LC_ALL=C  # a decimal point in $EPOCHREALTIME and awk
zstd -q -dc "$data/pgn/medium/tcec-standard-nocomments.pgn.zst" > "$work/tcec.pgn"
zstd -q -dc "$data/pgn/medium/sfbooks-bjbraams_chessdb_198350_lines.pgn.zst" > "$work/lines.pgn"

# run BINARY PGN PLY: "wall cpu" of one build into a new book, after make-book.
run() {
  [ -n "${WARM:-}" ] || "$pg" make-book -pgn "$2" -bin "$work/c.bin" >/dev/null 2>&1
  rm -rf "$work/c.book" "$work/c.book-lock"
  local start=$EPOCHREALTIME
  if ! /usr/bin/time -f '%U %S' -o "$work/time" "$1" build "$work/c.book" "$2" --max-ply "$3" --quiet \
    >/dev/null 2>"$work/err"; then
    echo "bench/compare: $1 build $2 failed:" >&2
    cat "$work/err" >&2
    return 1
  fi
  local end=$EPOCHREALTIME
  awk -v s="$start" -v e="$end" '{ printf "%.4f %.2f\n", e - s, $1 + $2 }' "$work/time"
}
# median COLUMN "WALL CPU"...: the median of that column.
median() {
  local column=$1; shift
  printf '%s\n' "$@" | cut -d' ' -f"$column" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
# summary "WALL CPU"...: min and median wall, median CPU.
summary() {
  printf 'min %.4f med %.4f cpu %.2f' "$(printf '%s\n' "$@" | cut -d' ' -f1 | sort -n | head -1)" \
    "$(median 1 "$@")" "$(median 2 "$@")"
}

for c in "tcec.pgn 40" "lines.pgn 0" "tcec.pgn 0"; do
  read -r pgn ply <<<"$c"
  ta=() tb=()
  for i in $(seq "$runs"); do
    # Which goes first changes each round: neither always follows the other.
    if [ $((i % 2)) = 1 ]; then
      ta+=("$(run "$a" "$work/$pgn" "$ply")") || exit 1
      tb+=("$(run "$b" "$work/$pgn" "$ply")") || exit 1
    else
      tb+=("$(run "$b" "$work/$pgn" "$ply")") || exit 1
      ta+=("$(run "$a" "$work/$pgn" "$ply")") || exit 1
    fi
  done
  printf '%-10s --max-ply %-3s A %s | B %s\n' "$pgn" "$ply" "$(summary "${ta[@]}")" "$(summary "${tb[@]}")"
done
