#!/usr/bin/env bash
# Device call L (one H200): the lab's batched timing with each of occtune's two other differences
# from it (the flush writing zeros every time, cuBLAS in its default math mode), alone and
# together, twice, at the two shapes where the lab and `tune` disagree most (call K).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$OUT/results.txt
S="1x3584x3584 1x4096x4096"
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
  for round in 1 2; do
    for opts in "" "--flush-zero" "--default-math" "--flush-zero --default-math"; do
      echo "== round $round, batched $opts"
      timeout 100 carry/gemv_pipe_lab --reps 40 --batched $opts $S
    done
  done
} > $T 2>&1
grep -E "^==|^[0-9]|family S1 c32" $T | grep -v " attr"
