#!/usr/bin/env bash
# Device call A (one H200, lab only): lab/rowdot_lab.cu with the rings for N <= 16 (and the
# 64-column ring for M <= 16) with K split over clusters of 3-8 blocks beside the registered
# rings (splits of 1, 2, 4 and 8), at shapes whose tiles make a fraction of a wave, twice; every
# ring checked against cuBLAS on a NaN-poisoned C.
set -u
. scripts/device-call-setup.sh callA
shapes="9000x14x9000 10000x10x10000 12000x16x12000 12000x12x12000 5000x16x20000 20000x16x5000 1000x12x100000 16x10000x10000 16x12000x12000 12x12000x12000 8192x16x8192 16384x16x16384 8192x12x8192 7000x16x11000 14000x9x9000 3000x16x40000 11000x8x11000 9999x15x7777 16x9000x14000 6000x5x30000 12000x8x12000 4096x16x4096 777x12x3001"
for run in 1 2; do
  s=$SECONDS
  timeout 250 carry/rowdot_split $shapes > "$W/split-$run.txt" 2>&1
  step "rowdot_split run $run" $? $((SECONDS - s))
done
tar -czf "$R/callA.tgz" -C /tmp callA
grep -h WRONG "$W"/*.txt | sort | uniq -c
# Per shape and run: cuBLAS, then the five best rings.
for f in "$W"/*.txt; do
  echo "== $(basename "$f")"
  awk '/^[0-9]+x/{print; n=0; next} /^  /{ if (n < 5) print; n++ }' "$f"
done
