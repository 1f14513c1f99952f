#!/usr/bin/env bash
# Device call 1 (H100), wave 2: every GPU test (the typed model and sink refactor, user kernels
# and their three examples tuned end to end, planted user faults, source kernels compiled with
# NVRTC and loaded, the skinny family, the element-wise check) and the install test.
set -u
[ -x build/autotuner/occtune ] || { tar -xJf carry/build.tar.xz -C /tmp && rm -rf build && mv /tmp/pack build; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
  echo "commit $(cat carry/commit)"; ls /usr/local/cuda/lib64/ | grep -i nvrtc; nproc; } > "$R/env.txt" 2>&1
start=$(date +%s)
timeout 420 ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
echo "ctest -L gpu rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
timeout 120 ctest --test-dir build -L install --output-on-failure > "$R/ctest-install.log" 2>&1
echo "ctest -L install rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
cat "$R/steps.txt"; grep -E "tests passed|tests failed|\*\*\*|Test +#" "$R/ctest-gpu.log" | tail -70
