#!/usr/bin/env bash
# Device call B (H100), wave 6: every built-in family through the registration API (16ba49c):
# every GPU test (test_builtin_api_families now launches every configuration of every family
# through the family's own launch against its device reference), the main job, and
# tiled_dynamic's walk at 4096³ (candidates and table as before).
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
{ date -u; echo "commit $(cat carry/commit)"; build/autotuner/occtune --version; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; } > "$R/env.txt" 2>&1
start=$(date +%s)
timeout 330 ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
echo "ctest -L gpu rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
timeout 60 build/autotuner/occtune tune --kernel tiled_dynamic --shape 4096x4096x4096 --db /tmp/td.db \
  > "$R/tiled-dynamic-4096.txt" 2>&1
echo "tune tiled_dynamic rc=$?" >> "$R/steps.txt"
start=$(date +%s)
timeout 90 build/autotuner/occtune tune --db /tmp/main-job.db > "$R/main-job.txt" 2> "$R/main-job.err"
echo "main job rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
cat "$R/env.txt" "$R/steps.txt"
grep -E "tests passed|tests failed|\*\*\*|Failed" "$R/ctest-gpu.log" | tail -8
grep -E "tuning wall|tuned in|wall time" "$R/main-job.txt" "$R/main-job.err" | tail -5
