#!/usr/bin/env bash
# Device call 1 (H100), wave 3: every GPU test (the stream-K family against cuBLAS in every
# layout, source kernels tuned/stored/launched with a compile_failed configuration, user kernels
# with aspect blocks, bytes and job-file problems, the one JSON codec in the GPU e2e scripts),
# the install test (the examples, source_kernel included, built against the packed install and
# run), and issue #14's cold/warm timing of the 148-configuration source-kernel example.
set -u
[ -x build/autotuner/occtune ] || { tar -xJf carry/build.tar.xz -C /tmp && rm -rf build && mv /tmp/pack build; }  # reuses a build left by an earlier call (see device-call8.sh)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
  echo "commit $(cat carry/commit)"; ls /usr/local/cuda/lib64/ | grep -i nvrtc; nproc; } > "$R/env.txt" 2>&1
start=$(date +%s)
timeout 330 ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
echo "ctest -L gpu rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
timeout 120 ctest --test-dir build -L install --output-on-failure > "$R/ctest-install.log" 2>&1
echo "ctest -L install rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
timeout 120 bash scripts/source-kernel-timing.sh build/autotuner/occtune > "$R/source-timing.txt" 2>&1
echo "source-kernel-timing rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
cat "$R/steps.txt"; cat "$R/source-timing.txt" | tail -8
grep -E "tests passed|tests failed|\*\*\*|Failed|Test +#" "$R/ctest-gpu.log" | tail -80
