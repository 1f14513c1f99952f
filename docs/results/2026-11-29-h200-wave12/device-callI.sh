#!/usr/bin/env bash
# Device call I (one H200): lab/gemv_pipe_lab.cu's window kernels with the copies issued a row
# per lane group (no division per copy), with and without the evict-first policy, on misaligned
# M = 1 shapes, twice; then skinny's candidates at two of them through `occtune tune`
# (carry/commit's build) on the same board.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$OUT/results.txt
S="1x4097x4097 1x12001x1501 1x6002x3001 1x2049x2049 1x4095x4096 1x8193x8193 1x1001x5003
   1x4096x4096"
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
  for round in 1 2; do echo "== lab round $round"; timeout 150 carry/gemv_pipe_lab --reps 40 $S; done
} > $T 2>&1
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
for x in 1x4097x4097 1x12001x1501; do
  echo "== occtune skinny exhaustive $x" >> $T
  timeout 60 build-h100/autotuner/occtune tune --kernel skinny --shape $x --strategy exhaustive \
    --wide --db /tmp/ex.db 2>&1 | grep -E "^skinny|^cublas" | awk '{print $1, $2, $10, $15}' \
    | sort -k3 -n | head -3 >> $T
done
awk '/^== lab round 2/{exit} {print}' $T | grep -E "^[0-9]|rowwin|window S1 c128 r32 s4 z8|window S1 c32 r256"
sed -n '/occtune/,$p' $T
