#!/usr/bin/env bash
# Device call E (one H200): lab/rowdot_lab.cu built here at carry/commit plus this wave's
# kernels/skinny_pipe.cuh: the rings for N <= 16 with 32 rows of C a block in two halves of
# its warps (SkinnyPipeSmallNHalves<32, COLS, ROWS, STAGES>), against the registered rings, on
# N = 5-16 shapes with a large A and odd shapes for correctness.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$OUT/results.txt
{ date -u; echo "build: $(cat carry/commit) + working tree (lab list, halves)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
s=$(date +%s)
timeout 300 carry/rowdot_lab --reps 15 8192x16x8192 16384x16x16384 4096x16x4096 2048x16x2048 \
  8192x12x8192 8192x9x8192 8192x8x8192 16384x8x16384 12940x8x1160 4096x8x4096 8192x5x8192 \
  4097x16x999 1001x11x2053 33x16x1000 17x13x129 1x9x1 31x7x4099 >> $T 2>&1
echo "lab rc=$? in $(( $(date +%s) - s )) s" >> $T
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader >> $T
cat $T
