#!/usr/bin/env bash
# Sets everything up and runs the main job on the data the project ships:
# builds a book from the 400 Stockfish self-play games in data/, shows what it
# holds, and what it says about the start position and after 1.e4.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
gb=build/cli/graphbook
book=build/sample.book
rm -f "$book" "$book-lock"
$gb build "$book" data/sample-games.pgn --index-games
echo
$gb info "$book"
echo
$gb probe "$book"
echo
$gb probe "$book" --moves "e4"
echo
echo "Explore it in a browser: $gb serve $book   (then open http://127.0.0.1:8642/)"
