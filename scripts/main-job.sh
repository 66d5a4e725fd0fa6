#!/usr/bin/env bash
# Sets everything up and runs the main job on the data the project ships:
# checks the sample collection of Stockfish self-play games.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
gb=build/cli/graphbook
$gb perft startpos 5
