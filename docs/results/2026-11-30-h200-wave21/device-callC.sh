#!/usr/bin/env bash
# Device call C (wave 21, one H200): the build of carry/commit (sk 3 over the 16-step tile, in
# tma and wrapped by repacked). Every GPU test; compute-sanitizer over every family.
set -u
. scripts/device-call-setup.sh callC
s=$(date +%s)
timeout 220 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
s=$(date +%s)
timeout 340 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
tail -6 $W/sanitize/summary.txt >> $T
tar -czf "$R/callC.tgz" -C /tmp callC
cat $T
