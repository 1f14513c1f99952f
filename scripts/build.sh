#!/usr/bin/env bash
# Installs what is missing (scripts/setup.sh), configures with the release preset and builds.
# Extra arguments go to the configure step, e.g. -DCMAKE_CUDA_ARCHITECTURES=90.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release "$@" >/dev/null
cmake --build --preset release -j "$(nproc)"
