#!/usr/bin/env bash
# Device call 1 (H100), wave 4: main with the source kernels' offline plan merged (srck3) (always unpacked afresh: an earlier call's build
# left on the machine is never reused) through every GPU test and the install test.
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
timeout 150 ctest --test-dir build -L install --output-on-failure > "$R/ctest-install.log" 2>&1
echo "ctest -L install rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
cat "$R/env.txt" "$R/steps.txt"
grep -E "tests passed|tests failed|\*\*\*|Failed|gpu_source_kernels:|user_kernels" "$R/ctest-gpu.log" | tail -30
grep -E "tests passed|\*\*\*|Failed|source_kernel|winner" "$R/ctest-install.log" | tail -20
