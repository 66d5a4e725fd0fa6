#!/usr/bin/env bash
# Sets everything up and runs the whole default test suite (the tests tagged
# slow are left out; `ctest --test-dir build -L slow` runs those).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build -LE slow --output-on-failure -j"$(nproc)"
