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
  graphviz time bc gnuplot-nox                # tree pictures; benchmark timing and plots (bench/scale.sh)
  e2fsprogs util-linux                        # chattr and setpriv: the read-only book tests
  libcpp-httplib-dev curl wrk chromium        # graphbook serve: HTTP library; its tests, load and page tests
  openmpi-bin libopenmpi-dev                  # build --mpi (mpirun; the MPI C library), tests/mpi
)
# graphbook serve's page (serve/web): node and npm, unless a node with its own
# npm is installed already (nodesource's nodejs ships npm and conflicts with
# Debian's npm package).
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
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

# The page's packages (chessground, chessops, and puppeteer-core for its
# browser test) from the npm registry, exactly as serve/web/package-lock.json
# pins them; again only when the lock file changed since the last install.
stamp=serve/web/node_modules/.graphbook-package-lock.json
if ! cmp -s serve/web/package-lock.json "$stamp" 2>/dev/null; then
  echo "setup: npm ci in serve/web"
  if (cd serve/web && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
    cp serve/web/package-lock.json "$stamp"
  else
    echo "setup: npm ci failed: graphbook serve answers its API, but its page and the page's test need serve/web/node_modules" >&2
  fi
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGRAPHBOOK_MPI=ON >/dev/null
cmake --build build -j"$(nproc)"
