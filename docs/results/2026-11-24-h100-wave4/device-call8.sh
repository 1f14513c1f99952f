#!/usr/bin/env bash
# Device call 8 (H100), wave 4: the same commit as call 7 packed with its symbol tables kept
# (scripts/pack-device-build.sh now strips debug information only), unpacked afresh: every GPU
# test; the main job (`occtune tune`, the default job: ten families, three shapes) timed; and
# scripts/bench-search.sh: the default strategy (cost-model pruning, halving) against exhaustive
# on the main job's shapes, every default family.
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
  echo "commit $(cat carry/commit)"; build/autotuner/occtune --version; } > "$R/env.txt" 2>&1
start=$(date +%s)
timeout 200 ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
echo "ctest -L gpu rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
timeout 120 build/autotuner/occtune tune --db /tmp/main-job.db --report "$R/occtune-report.html" > "$R/main-job.txt" 2> "$R/main-job.err"
echo "main job (occtune tune, default job) rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
timeout 330 bash scripts/bench-search.sh -k tiled_dynamic,tiled_static,naive,coarsened,regblocked,pipelined,splitk,skinny,streamk,repacked -m 4 -r 0 -o /tmp/bs 1024x1024x1024 4096x4096x4096 3001x1000x4097 > "$R/bench-search.out" 2>&1
echo "bench-search rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
tar -czf "$R/bench-search.tgz" -C /tmp bs
cat "$R/env.txt" "$R/steps.txt"
grep -E "tests passed|tests failed|\*\*\*|Failed" "$R/ctest-gpu.log" | tail -8
grep -iE "wall|tuning took|seconds|shape .* s$" "$R/main-job.txt" "$R/main-job.err" | tail -8
tail -25 "$R/bench-search.out"
