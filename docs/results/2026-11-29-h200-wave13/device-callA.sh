#!/usr/bin/env bash
# Device call A (one H200): lab/gemv_pipe_lab.cu built here at the working tree of carry/commit
# plus SkinnyPipeWindow (kernels/skinny_pipe.cuh, WINDOW): occtune's ring reading misaligned
# rows as aligned 16-byte windows, beside the lab's own windows, the register kernels' figures
# (cuBLAS in the same process), and SkinnyPipe at more slab shapes for the 256 MiB operands.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$OUT/results.txt
{ date -u; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
timeout 200 carry/gemv_pipe_lab --reps 30 1x4097x4097 1x12001x1501 1x3001x7001 1x6002x3001 \
  1x2047x2047 1x16383x4095 1x5003x999 1x4096x4096 8x4097x4097 4x3001x3001 1x8192x8192 \
  8x8192x8192 >> $T 2>&1
echo "lab rc=$?" >> $T
cat $T
