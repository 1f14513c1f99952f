#!/usr/bin/env bash
# Device call D (H100), wave 6: main with the tma family merged (the Hopper TMA kernel as a
# built-in family, sm_90a): every GPU test, tma tuned alone at 4096³ and 8192³, the main job,
# bench-search (default against exhaustive, every default family) and the 53-shape suite twice.
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
{ date -u; echo "commit $(cat carry/commit)"; build/autotuner/occtune --version; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; } > "$R/env.txt" 2>&1
start=$(date +%s)
timeout 200 ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
echo "ctest -L gpu rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
timeout 60 build/autotuner/occtune tune --kernel tma --kernel pipelined --kernel regblocked \
  --shape 4096x4096x4096 --shape 8192x8192x8192 --db /tmp/tma.db > "$R/tma-tune.txt" 2>&1
echo "tune tma rc=$?" >> "$R/steps.txt"
timeout 30 build/autotuner/occtune plan --profile a100 --kernel tma --shape 4096x4096x4096 > "$R/tma-plan-a100.txt" 2>&1
echo "plan a100 rc=$?" >> "$R/steps.txt"
start=$(date +%s)
timeout 60 build/autotuner/occtune tune --db /tmp/main-job.db > "$R/main-job.txt" 2> "$R/main-job.err"
echo "main job rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
BENCH_TIMEOUT=100 timeout 115 bash scripts/bench-suite.sh -o "$R/suite1" > "$R/suite1.out" 2>&1
echo "suite 1 rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
BENCH_TIMEOUT=100 timeout 115 bash scripts/bench-suite.sh -o "$R/suite2" > "$R/suite2.out" 2>&1
echo "suite 2 rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
tar -czf "$R/suites.tgz" -C "$R" suite1 suite2 && rm -rf "$R/suite1" "$R/suite2"
cat "$R/env.txt" "$R/steps.txt"
grep -E "tests passed|tests failed|\*\*\*|Failed" "$R/ctest-gpu.log" | tail -8
grep -E "shape wall time|tuning wall" "$R/main-job.txt"
grep -E "geometric|self-check" "$R/suite1.out" "$R/suite2.out"
