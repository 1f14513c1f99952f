#!/usr/bin/env bash
# Installs what is missing (scripts/setup.sh), configures with the release preset and builds.
# Extra arguments go to the configure step, e.g. -DCMAKE_CUDA_ARCHITECTURES=90.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The build and the tests' files take about 2 GB with the default four architectures (1.96 GB at
# most in a CI run of 2026-11-30): say so before a link fails with "No space left on device".
free_kib=$(df -Pk . | awk 'NR == 2 {print $4}')
if [ "${free_kib:-0}" -lt $((3 * 1024 * 1024)) ]; then
  echo "scripts/build.sh: warning: only $((free_kib / 1024)) MiB free here; the build and its" \
       "tests need about 2 GB (free some space, or build one architecture:" \
       "-DCMAKE_CUDA_ARCHITECTURES=90)" >&2
fi
cmake --preset release "$@" >/dev/null
cmake --build --preset release -j "$(nproc)"
