#!/usr/bin/env bash
# Device call 6 (H100), wave 4: main with the new skinny kernel (d1d6a20), unpacked afresh:
# every GPU test, then `occtune bench` (all families) on the suite's shapes with M or N <= 16
# (skinny-suite.txt beside this script), through scripts/bench-suite.sh.
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
  echo "commit $(cat carry/commit)"; build/autotuner/occtune --version; } > "$R/env.txt" 2>&1
start=$(date +%s)
timeout 300 ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
echo "ctest -L gpu rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
BENCH_TIMEOUT=240 bash scripts/bench-suite.sh -s docs/results/2026-11-24-h100-wave4/skinny-suite.txt -o "$R/bench" > "$R/bench-suite.out" 2>&1
echo "bench-suite rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
cat "$R/env.txt" "$R/steps.txt"
grep -E "tests passed|tests failed|\*\*\*|Failed" "$R/ctest-gpu.log" | tail -12
cat "$R"/bench/*/summary.txt | cut -c1-150
