#!/usr/bin/env bash
# Device call E (one H200, labs only): lab/rowdot_lab.cu built against kernels/skinny_pipe.cuh as
# committed in b39bfc3 (`inbox`) and with the dense-B kernel also for B dense with N a multiple
# of 4 below the tile's width (`dense`: N = 12 on 16 columns; lean dense copies, float4 loads),
# alternated twice, each run checking every ring against cuBLAS on a NaN-poisoned C (odd shapes
# included). In the lab every "dense" configuration runs the dense-B kernel.
set -u
. scripts/device-call-setup.sh callE
shapes="8192x12x8192 16384x12x16384 4096x12x4096 12000x12x12000 1000x12x100000 8192x8x8192 8192x16x8192 8192x10x8192 6000x10x20000 777x12x3001 13x12x4099 100x8x1000 1x4x17 33x12x1 16x12x64"
for run in 1 2; do
  for b in inbox dense; do
    s=$SECONDS
    timeout 120 carry/rowdot_$b $shapes > "$W/$b-$run.txt" 2>&1
    step "rowdot_$b run $run" $? $((SECONDS - s))
  done
done
tar -czf "$R/callE.tgz" -C /tmp callE
cp "$T" "$R/"
grep -h WRONG "$W"/*.txt | sort | uniq -c
for b in inbox dense; do for run in 1 2; do echo "== $b $run"; grep -E "^[0-9]|S64 c16 r64 s4 x2 |S64 c16 r64 s5 x2 |S32 c16 r128 s4 x2 |S64 c8 r128 s3 x2 |S16 c16 r256 s3 x. " "$W/$b-$run.txt" | sed -E 's/^ +(.*[^ ]) +([0-9.]+) us.*/[\1 \2]/; s/^([0-9x]+):.*/\1/' | tr '\n' ' ' | sed 's/ \([0-9]*x[0-9]*x[0-9]*\) /\n\1 /g'; echo; done; done
