#!/usr/bin/env bash
# Device call A (one H200): `ctest -L gpu` on main's last commit (carry/commit; its e2e bench
# check of race_candidates had not run on a GPU), then lab/rowdot_lab.cu with wave 23's rings
# (128 rows of C a block for N <= 16, 32-128-column split rings for M <= 16; carry/rowdot_lab_new)
# twice on the HBM shapes, and lab/ring_read_lab.cu (the ring's copies alone, with and without
# FMAs) under the read flush.
set -u
. scripts/device-call-setup.sh callA
s=$SECONDS
timeout 260 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $((SECONDS - s))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> "$T"
shapes="8192x16x8192 16384x16x16384 8192x12x8192 4096x16x4096 16x8192x8192 16x16384x16384 12x8192x8192 16x4096x4096"
for run in 1 2; do
  s=$SECONDS
  timeout 150 carry/rowdot_lab_new $shapes > "$W/rowdot_lab-$run.txt" 2>&1
  step "rowdot_lab run $run" $? $((SECONDS - s))
done
s=$SECONDS
timeout 120 carry/ring_read_lab > "$W/ring_read_lab.txt" 2>&1
step ring_read_lab $? $((SECONDS - s))
cp "$W"/rowdot_lab-*.txt "$W/ring_read_lab.txt" "$R/"
tar -czf "$R/callA.tgz" -C /tmp callA
tail -12 "$T" | cut -c1-200
for f in "$W"/rowdot_lab-*.txt; do echo "== $f"; grep -E "^[0-9]|S128|S64 c16 r64 s4 x2 |mring|WRONG" "$f" | grep -v dense | head -60; done
