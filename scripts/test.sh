#!/usr/bin/env bash
# Quick start, tests: build everything and run the whole suite. Tests labelled `gpu` skip
# themselves where no GPU is visible; on a GPU machine they run for real.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --preset release -j "$(nproc)" "$@"
