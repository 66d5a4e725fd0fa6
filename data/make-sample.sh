#!/usr/bin/env bash
# Remakes data/sample-games.pgn: 400 Stockfish self-play games (see
# data/tools/make_sample_games.cpp). Needs a built tree (scripts/setup.sh) and
# Debian's stockfish. The output is deterministic for a given Stockfish build
# and seed, since every search is limited by nodes, not time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cmake --build "$here/../build" --target make_sample_games -j2 >/dev/null
"$here/../build/data/make_sample_games" /usr/games/stockfish "${1:-400}" "${2:-2026}" > "$here/sample-games.pgn"
echo "wrote $here/sample-games.pgn ($(grep -c '^\[Event ' "$here/sample-games.pgn") games)"
