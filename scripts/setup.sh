#!/usr/bin/env bash
# Installs what graphbook needs from Debian (only what is missing, so a second
# run is fast) and builds it in ./build (Release). Run as root on Debian 12.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config git clang-format  # toolchain
  liblmdb-dev lmdb-utils libxxhash-dev libzstd-dev zstd
  libcli11-dev nlohmann-json3-dev catch2       # libraries (headers) and tests
  stockfish polyglot pgn-extract              # the peers: tests and benchmarks run them
  graphviz time bc                            # tree pictures; benchmark timing
  e2fsprogs util-linux                        # chattr and setpriv: the read-only book tests
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
