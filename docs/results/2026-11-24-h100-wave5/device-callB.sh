#!/usr/bin/env bash
# Device call B (H100), wave 5: main with the wave-5 branches merged (split-K's new variants, the
# tiled repacked copy, tiled_static and naive registered through the API), unpacked afresh: every
# GPU test, the install test, the main job timed, the misaligned suite (repacked with the new
# copy) and the 53-shape suite twice.
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
  echo "commit $(cat carry/commit)"; build/autotuner/occtune --version; } > "$R/env.txt" 2>&1
start=$(date +%s)
timeout 240 ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
echo "ctest -L gpu rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
timeout 120 ctest --test-dir build -L install --output-on-failure > "$R/ctest-install.log" 2>&1
echo "ctest -L install rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
timeout 60 build/autotuner/occtune tune --db /tmp/main-job.db > "$R/main-job.txt" 2> "$R/main-job.err"
echo "main job (occtune tune, default job) rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
BENCH_TIMEOUT=60 bash scripts/bench-suite.sh -s docs/results/2026-11-24-h100-wave4/misaligned-suite.txt -o "$R/misaligned" > "$R/misaligned.out" 2>&1
echo "misaligned suite rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
for run in 1 2; do
  start=$(date +%s)
  BENCH_TIMEOUT=100 bash scripts/bench-suite.sh -o "$R/suite$run" > "$R/suite$run.out" 2>&1
  echo "suite run $run rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
done
tar -czf "$R/bench.tgz" -C "$R" misaligned suite1 suite2 && rm -rf "$R/misaligned" "$R/suite1" "$R/suite2"
cat "$R/env.txt" "$R/steps.txt"
grep -E "tests passed|tests failed|\*\*\*|Failed" "$R/ctest-gpu.log" "$R/ctest-install.log" | tail -14
grep -vE "^occtune bench:" "$R/misaligned.out" | cut -c1-200 | tail -10
for run in 1 2; do grep -E "geometric|self-check" "$R/suite$run.out"; done
grep -vE "^occtune bench:" "$R/suite1.out" | awk '$3 < 0.9 {print $1, $3, $9}' | head -20
