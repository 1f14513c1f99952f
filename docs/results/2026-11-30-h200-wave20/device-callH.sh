#!/usr/bin/env bash
# Device call H (wave 20, one H200): the review's build (carry/commit: one FMA-order helper,
# tile::fma_outer, for BlockTile and the tma family; the PTX of every kernel file that uses it
# is byte for byte the same as before; test_tma_family counts exactly one stream-K
# configuration again). Every GPU test.
set -u
. scripts/device-call-setup.sh callH
s=$(date +%s)
timeout 220 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
tar -czf "$R/callH.tgz" -C /tmp callH
cat "$T"
