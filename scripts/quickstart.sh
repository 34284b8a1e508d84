#!/usr/bin/env bash
# Sets up (Debian packages), builds the release preset and runs the default experiment,
# writing results/quickstart.h5, then prints its verdict table (rdpaudit check).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)"
./build/release/rdpaudit run experiments/quickstart.toml -o results/quickstart.h5 "$@"
./build/release/rdpaudit check results/quickstart.h5
