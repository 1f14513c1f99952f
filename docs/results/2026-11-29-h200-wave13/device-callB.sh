#!/usr/bin/env bash
# Device call B (one H200): lab/gemv_pipe_lab.cu built here at the working tree of carry/commit
# plus SkinnyPipeWindow and the ring with K split over a cluster (SkinnyPipeIn's SPLITS), at
# narrow N (few column tiles), misaligned and aligned, with cuBLAS in the same process.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$OUT/results.txt
{ date -u; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
timeout 200 carry/gemv_pipe_lab --reps 30 1x1001x5003 1x777x12345 1x30001x511 1x1024x16384 \
  1x2048x8192 8x1001x5003 8x1024x8192 1x4097x4097 1x12001x1501 >> $T 2>&1
echo "lab rc=$?" >> $T
grep -E "aligned|fwindow|family|WRONG|rc=" $T
