#!/usr/bin/env bash
# Device call C (one H200): lab/rowdot_lab.cu built here at carry/commit plus this wave's
# kernels/skinny_rowdot.cuh (the row-dot kernel with A's batches through a cp.async ring in
# shared memory, SkinnyRowDotRing<R, LK, NC, KW, U, D>) against the registered row-dot
# variants, 3-column tiles for N = 3 and the rings, on N <= 16 shapes with a large A and odd
# shapes for correctness.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$OUT/results.txt
{ date -u; echo "build: $(cat carry/commit) + working tree (lab list, ring path)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
s=$(date +%s)
timeout 300 carry/rowdot_lab --reps 15 8192x1x8192 8192x2x8192 8192x3x8192 8192x4x8192 \
  16384x4x16384 16384x1x16384 4096x4x4096 4096x1x4096 8192x8x8192 8192x16x8192 \
  17x5x1001 1x1x1 4097x3x999 333x4x132 1000x2x4100 1001x1x2052 4097x16x999 >> $T 2>&1
echo "lab rc=$? in $(( $(date +%s) - s )) s" >> $T
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader >> $T
cat $T
