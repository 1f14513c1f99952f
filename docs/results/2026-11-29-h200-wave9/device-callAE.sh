#!/usr/bin/env bash
# Device call AE (one H200), session of 2026-11-29: the new GPU test of the two-kernel launches
# captured into a CUDA graph (KernelFamily.TwoKernelLaunchesReplayFromAGraph), then every GPU
# test, with the session's final build (carry/build.tar.xz, carry/commit: the kernels of call
# Z's build, 78801e6, and the new test). Everything goes into callAE.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callAE; mkdir -p $W; T=$R/results.txt
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L; build-h100/autotuner/occtune --version; } > "$W/env.txt" 2>&1
s=$(date +%s)
timeout 60 build-h100/tests/test_kernel_family --gtest_filter='*Graph*' > "$W/graph-test.log" 2>&1
step graph-test $? $(( $(date +%s) - s ))
s=$(date +%s)
timeout 170 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
{ cat "$W/env.txt" "$W/steps.txt"; tail -5 "$W/graph-test.log"
  grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6; } > "$T" 2>&1
tar -czf "$R/callAE.tgz" -C /tmp callAE
cat "$T"
