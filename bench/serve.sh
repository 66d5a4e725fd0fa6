#!/usr/bin/env bash
# Load on `graphbook serve` with wrk (Debian's) on the loopback: GET /masters
# for positions drawn from the book (bench/serve.lua), at 1, 16 and 64
# connections, DURATION seconds each (default 10). Prints per step the rate,
# p50/p99 latency and the errors, and at the end
#   RATE serve_rps_64 <requests/s>   RATE serve_p99_ms_64 <ms>   ERRORS serve_errors <n>
# Target on 2 cores: >= 20,000 requests/s and p99 <= 5 ms at 64 connections.
#
#   bash bench/serve.sh [BOOK]     (default: a book of data/sample-games.pgn, built here)
#   GRAPHBOOK_BIN=build/cli/graphbook DURATION=10 THREADS=72 bash bench/serve.sh
set -euo pipefail
cd "$(dirname "$0")/.."
gb=${GRAPHBOOK_BIN:-build/cli/graphbook}
duration=${DURATION:-10}
threads=${THREADS:-72}  # one pool thread per kept-alive connection: more than the 64 connections
command -v wrk >/dev/null || { echo "skipped: wrk is not installed (scripts/setup.sh installs it)"; exit 0; }
[ -x "$gb" ] || { echo "no graphbook binary at $gb (build it, or set GRAPHBOOK_BIN)"; exit 2; }

work=$(mktemp -d /tmp/graphbook-bench-serve-XXXXXX)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

book=${1:-}
if [ -z "$book" ]; then
  book=$work/sample.book
  "$gb" build "$book" data/sample-games.pgn --index-games --quiet >/dev/null
fi
# The positions: every node of the book's graph 6 plies deep (at most 400).
"$gb" tree "$book" --depth 6 --max-nodes 400 --format json --no-names |
  grep -o '"fen": *"[^"]*"' | sed 's/"fen": *"//; s/"$//' >"$work/fens"
echo "book $book: $(wc -l <"$work/fens") positions drawn from"

"$gb" serve "$book" --listen 127.0.0.1:0 --threads "$threads" >"$work/serve.out" 2>"$work/serve.err" &
server=$!
for _ in $(seq 100); do grep -qs http "$work/serve.out" && break; sleep 0.1; done
url=$(grep -o 'http://[^/ ]*' "$work/serve.out")
[ -n "$url" ] || { echo "graphbook serve did not start:"; cat "$work/serve.err"; exit 2; }
curl -sf "$url/masters" >/dev/null

total_errors=0
for connections in 1 16 64; do
  wrk_threads=$((connections < 2 ? 1 : 2))
  line=$(SERVE_FENS="$work/fens" wrk -t"$wrk_threads" -c"$connections" -d"${duration}s" --timeout 10s \
    -s bench/serve.lua "$url" | grep '^SERVE_RESULT')
  get() { echo "$line" | grep -o "$1=[0-9.]*" | cut -d= -f2; }
  rps=$(echo "$(get requests) / $(get seconds)" | bc)
  errors=$(($(get errors_connect) + $(get errors_read) + $(get errors_write) + $(get errors_status) + $(get errors_timeout)))
  total_errors=$((total_errors + errors))
  printf 'connections %2d: %8d requests/s  p50 %6.3f ms  p99 %7.3f ms  max %8.3f ms  errors %d\n' \
    "$connections" "$rps" "$(get p50_ms)" "$(get p99_ms)" "$(get max_ms)" "$errors"
  [ "$connections" = 64 ] && rps64=$rps && p99_64=$(get p99_ms)
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; server threads $threads"
echo "ERRORS serve_errors $total_errors"
echo "RATE serve_p99_ms_64 $p99_64"
echo "RATE serve_rps_64 $rps64"
