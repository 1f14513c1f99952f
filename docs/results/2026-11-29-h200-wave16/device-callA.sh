#!/usr/bin/env bash
# Device call A (one H200): lab/rowdot_lab.cu built here at the working tree of carry/commit
# plus kernels/skinny_rowdot.cuh (the row-dot kernel: A's rows straight into registers, B
# through L1, no barrier in the main loop) against the rings for N <= 16 and cuBLAS, on the N <=
# 16 shapes with a large A and on odd shapes for correctness.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$OUT/results.txt
{ date -u; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
timeout 250 carry/rowdot_lab --reps 20 8192x1x8192 16384x1x16384 4096x1x4096 8192x2x8192 \
  8192x4x8192 16384x4x16384 8192x8x8192 16384x8x16384 8192x16x8192 16384x16x16384 \
  4096x8x4096 2048x16x2048 1000x3x4097 17x5x1001 1x1x1 4097x16x999 333x7x129 >> $T 2>&1
echo "lab rc=$?" >> $T
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader >> $T
cat $T
