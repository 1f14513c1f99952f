#!/usr/bin/env bash
# Device call J (one H200): lab/rowdot_lab.cu built here at carry/commit plus its side-0 rings
# (M <= 16, B the large operand; launches of a K split in a cluster): the registered S = 16
# rings and their K split over a cluster of 2 or 4 blocks, 32-128 columns a block, on M <= 16
# shapes with a large B (Nsight Compute, call I: the 64-column ring at 16x8192x8192 runs 128
# blocks, one an SM) and odd shapes for correctness.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$OUT/results.txt
{ date -u; echo "build: $(cat carry/commit) + working tree (lab: side-0 rings)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
s=$(date +%s)
timeout 300 carry/rowdot_lab --reps 15 16x8192x8192 16x16384x16384 16x4096x4096 12x8192x8192 \
  9x8192x8192 16x12000x6000 16x2048x16384 16x4097x999 13x1001x2053 16x1x1 11x333x129 >> $T 2>&1
echo "lab rc=$? in $(( $(date +%s) - s )) s" >> $T
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader >> $T
cat $T
