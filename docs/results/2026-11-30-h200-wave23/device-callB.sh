#!/usr/bin/env bash
# Device call B (one H200, labs only): where the 8192x16x8192 ring's time goes beyond its copies
# and FMAs. lab/rowdot_lab.cu built five times against kernels/skinny_pipe.cuh with ablation.diff
# (here) applied: as is (BASE), without B's copies (NO_B), without A's (NO_A), without the FMA
# loop (NO_FMA: one shared-memory read a slab instead), without the final reduction (NO_RED: a
# thread's sums written anywhere). Timings only: the ablated kernels' results are wrong by
# design. Then rowdot_lab with call B's two-stage and 128-row-slab rings, twice.
set -u
. scripts/device-call-setup.sh callB
for run in 1 2; do
  for v in BASE NO_B NO_A NO_FMA NO_RED; do
    s=$SECONDS
    timeout 60 carry/abl_$v 8192x16x8192 16384x16x16384 16x8192x8192 > "$W/abl_$v-$run.txt" 2>&1
    step "abl_$v run $run" $? $((SECONDS - s))
  done
  s=$SECONDS
  timeout 150 carry/rowdot_lab_new 8192x16x8192 16384x16x16384 8192x12x8192 4096x16x4096 > "$W/rowdot_lab-$run.txt" 2>&1
  step "rowdot_lab run $run" $? $((SECONDS - s))
done
cp "$W"/*.txt "$R/"
tar -czf "$R/callB.tgz" -C /tmp callB
for f in "$W"/abl_*-1.txt "$W"/abl_*-2.txt; do echo "== $(basename $f)"; grep -E "^[0-9]|S64 c16 r64 s4 x2 |mring S16 c64 r64 s4 x2" "$f" | grep -v dense; done
for f in "$W"/rowdot_lab-*.txt; do echo "== $(basename $f)"; grep -E "^[0-9]|S128|S64 c16 r64 s4 x2 |S64 c16 r128" "$f" | grep -v dense; done
