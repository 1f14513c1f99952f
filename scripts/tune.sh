#!/usr/bin/env bash
# Quick start, main job: build everything, then tune every kernel family on the default shapes
# (configs/default.toml) into the default database, and end with the summary (per shape the
# winner, its family and configuration, time, TFLOP/s, ratio to cuBLAS, and where the textbook
# occupancy pick landed) and the path of the HTML report. Arguments are passed to `occtune tune`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
exec ./build/autotuner/occtune tune --report "${OCCTUNE_REPORT:-occtune-report.html}" "$@"
