#!/usr/bin/env bash
# Quick start, main job: build everything, then run `occtune tune` with the default job
# (configs/default.toml). Arguments are passed to `occtune tune`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
exec ./build/autotuner/occtune tune "$@"
