#!/usr/bin/env bash
# Sets up (Debian packages), builds the command line alone (not the tests or benchmarks) and
# runs the default experiment, writing results/quickstart.h5: `run` prints the per-scenario
# estimates and the verdict table; `check` then turns it into an exit status (its PASS or
# FAIL lines only: the table it would print again is run's).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)" --target rdpaudit
./build/release/rdpaudit run experiments/quickstart.toml -o results/quickstart.h5 "$@"
./build/release/rdpaudit check results/quickstart.h5 | sed -n '/^PASS\|^FAIL/,$p'
