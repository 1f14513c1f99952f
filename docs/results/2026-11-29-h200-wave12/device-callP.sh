#!/usr/bin/env bash
# Device call P (one H200): the lab, batched: occtune's SkinnyPipe kernels entered as the lab does
# (restrict pointers, lda = k and ldb = ldc = n known) and as gemm_entry does (one GemmArgs), twice,
# at the shapes where the lab and `tune` disagree (calls K and M).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$OUT/results.txt
S="1x3584x3584 1x4096x4096 8x4096x4096"
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
  for round in 1 2; do
    for opts in ""; do
      echo "== round $round, batched $opts"
      timeout 100 carry/gemv_pipe_lab --reps 40 --batched $opts $S
    done
  done
} > $T 2>&1
grep -E "^==|^[0-9]|family S1 c32|family S8|family-args" $T | grep -v " attr"
