#!/usr/bin/env bash
# Device call H (one H200): lab/gemv_pipe_lab.cu with occtune's SkinnyPipe kernels launched
# two ways in one process: the limit on dynamic shared memory set once, and set again before
# every launch (as occtune's launch_variant did, between the start event and the launch).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$OUT/results.txt
S="1x4096x4096 1x2048x2048 1x3584x3584 8x4096x4096 1x8192x8192"
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
  for round in 1 2; do echo "== lab round $round"; timeout 150 carry/gemv_pipe_lab --reps 40 $S; done
} > $T 2>&1
grep -E "^[0-9]|family" $T
