#!/usr/bin/env bash
# Device call J (one H200, lab only): lab/rowdot_lab.cu as committed plus, for M <= 16, the
# 64-column split ring with five stages and with two 128-row stages, twice on the M <= 16 and
# N <= 16 HBM shapes short of 85% in call H (each configuration checked against cuBLAS on a
# NaN-poisoned C).
set -u
. scripts/device-call-setup.sh callJ
shapes="16x8192x8192 16x12000x12000 16x16384x16384 12x8192x8192 8192x16x8192 12000x16x12000 32768x16x4096"
for run in 1 2; do
  s=$SECONDS
  timeout 120 carry/rowdot_lab_j $shapes > "$W/j-$run.txt" 2>&1
  step "rowdot_lab run $run" $? $((SECONDS - s))
done
cp "$W"/*.txt "$R/"
grep -h WRONG "$W"/*.txt | sort | uniq -c
for f in "$W"/j-*.txt; do echo "== $f"; grep -vE "dense|S16 c8|S32 c16 r128 s4  |S16 c16 r256 s3  " "$f" | head -60; done
