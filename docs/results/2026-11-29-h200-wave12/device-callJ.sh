#!/usr/bin/env bash
# Device call J (one H200): lab/gemv_pipe_lab.cu timing occtune's SkinnyPipe kernels and the
# lab's own two ways: a synchronisation after every sample (the lab's pattern, configurations
# interleaved) and every sample of a configuration enqueued before one synchronisation
# (--batched: occtune's LaunchSampler's pattern); plus the lab's kernels with A's copies without
# the evict-first policy (pipe-plainA), as occtune's kernel copies A.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$OUT/results.txt
S="1x4096x4096 1x3584x3584 8x4096x4096 4x4096x4096 1x8192x8192"
F="^[0-9]|family|pipe S1 c32 r256 s4 z1|plainA|pipe S8 c32 r128 s4 z1|pipe S4 c32 r128 s4 z1"
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
  for round in 1 2; do
    echo "== lab round $round, a synchronisation per sample"
    timeout 150 carry/gemv_pipe_lab --reps 40 $S
    echo "== lab round $round, batched"
    timeout 150 carry/gemv_pipe_lab --reps 40 --batched $S
  done
} > $T 2>&1
grep -E "^==|$F" $T | grep -v " attr"
