#!/usr/bin/env bash
# bench/perft: perft 6 from the start position, graphbook against Stockfish's
# `go perft 6` (Debian stockfish), in the same run, best of 3 each. Start-up
# time (table init, network load) is measured separately and subtracted.
# Last line: RATIO perft_vs_stockfish <our nodes/s / Stockfish's nodes/s>.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gb=${GRAPHBOOK:-$here/../build/cli/graphbook}
sf=${STOCKFISH:-/usr/games/stockfish}
depth=${1:-6}

now() { date +%s.%N; }
best_of_3() {  # best wall time of a command, in seconds
  local best=
  for _ in 1 2 3; do
    local t0 t1; t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
    best=$(echo "$t1 - $t0" | bc -l | awk -v b="$best" '{ if (b == "" || $1 < b) print $1; else print b }')
  done
  echo "$best"
}
sf_perft() { printf 'go perft %s\nquit\n' "$1" | "$sf"; }

nodes=$("$gb" perft startpos "$depth" 2>/dev/null | awk '/Nodes searched/ {print $3}')
sf_nodes=$(sf_perft "$depth" | awk '/Nodes searched/ {print $3}')
[ "$nodes" = "$sf_nodes" ] || { echo "node counts differ: ours $nodes, Stockfish $sf_nodes" >&2; exit 1; }

ours=$(best_of_3 "$gb" perft startpos "$depth")
ours0=$(best_of_3 "$gb" perft startpos 0)
theirs=$(best_of_3 sf_perft "$depth")
theirs0=$(best_of_3 sf_perft 1)
awk -v n="$nodes" -v a="$ours" -v a0="$ours0" -v b="$theirs" -v b0="$theirs0" 'BEGIN {
  ta = a - a0; tb = b - b0; if (ta <= 0) ta = 1e-6; if (tb <= 0) tb = 1e-6
  printf "perft %d nodes\n", n
  printf "graphbook: %.3f s (start-up %.3f s)  %.1f Mnodes/s\n", ta, a0, n / ta / 1e6
  printf "stockfish: %.3f s (start-up %.3f s)  %.1f Mnodes/s\n", tb, b0, n / tb / 1e6
  printf "RATIO perft_vs_stockfish %.2f\n", (n / ta) / (n / tb)
}'
