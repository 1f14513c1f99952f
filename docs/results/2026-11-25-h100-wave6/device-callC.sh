#!/usr/bin/env bash
# Device call C (H100), wave 6: main with the fastune branch merged (halving abandons candidates
# whose fastest of 3 samples is 1.5x the shape's best; families raced best estimate first):
# every GPU test, the main job's tuning time, and bench-search (default against exhaustive) on
# the main job's shapes.
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
{ date -u; echo "commit $(cat carry/commit)"; build/autotuner/occtune --version; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; } > "$R/env.txt" 2>&1
start=$(date +%s)
timeout 300 ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
echo "ctest -L gpu rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
timeout 60 build/autotuner/occtune tune --db /tmp/main-job.db > "$R/main-job.txt" 2> "$R/main-job.err"
echo "main job rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
timeout 200 bash scripts/bench-search.sh -b build/autotuner/occtune \
  -k tiled_dynamic,tiled_static,naive,coarsened,regblocked,pipelined,splitk,skinny,streamk,repacked \
  -m 4 -r 0 -o /tmp/bs 1024x1024x1024 4096x4096x4096 3001x1000x4097 > "$R/bench-search.out" 2>&1
echo "bench-search rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
tar -czf "$R/bench-search.tgz" -C /tmp bs
cat "$R/env.txt" "$R/steps.txt"
grep -E "tests passed|tests failed|\*\*\*|Failed" "$R/ctest-gpu.log" | tail -8
grep -E "shape wall time|tuning wall" "$R/main-job.txt"
tail -15 "$R/bench-search.out"
