#!/usr/bin/env bash
# Device call H (one H200): the session's last build (carry/commit: tiled.cuh's unroll through
# OCCTUNE_UNROLL, PTX byte for byte the same; warnings fixed in host code). `ctest -L gpu`.
set -u
. scripts/device-call-setup.sh callH
s=$SECONDS
timeout 220 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $((SECONDS - s))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> "$T"
tar -czf "$R/callH.tgz" -C /tmp callH
cat "$T" | tail -8 | cut -c1-200
