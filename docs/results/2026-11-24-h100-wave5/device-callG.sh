#!/usr/bin/env bash
# Device call G (H100), wave 5: the review folds (commits 18ded6e, d9ff086: one read-only load
# helper for skinny and the repacked copy, the textbook families' leading dimensions, a device
# reference that no longer copies inputs to the host): every GPU test.
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
{ date -u; echo "commit $(cat carry/commit)"; build/autotuner/occtune --version; } > "$R/env.txt" 2>&1
start=$(date +%s)
timeout 300 ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
echo "ctest -L gpu rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
cat "$R/env.txt" "$R/steps.txt"
grep -E "tests passed|tests failed|\*\*\*|Failed" "$R/ctest-gpu.log" | tail -8
