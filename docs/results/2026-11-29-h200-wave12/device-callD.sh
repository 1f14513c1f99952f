#!/usr/bin/env bash
# Device call D (one H200): lab/gemv_pipe_lab.cu's fourth version (call C's kernels plus narrow
# column tiles of 16, 32 and 64 without a K split, as cuBLAS's gemv runs) on the M <= 8 shapes,
# twice; then every skinny candidate at three of them through `occtune tune` (a7fa542's build)
# on the same board.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; T=$R/results.txt
S="1x4096x4096 1x4097x4097 1x2048x2048 1x8192x8192 1x8193x8193 1x4100x4097 1x3000x3000
   1x12001x1501 1x6002x3001 1x1001x5003 1x777x12345 1x16384x16384 4x4096x4096 4x8192x8192
   8x4096x4096 8x8192x8192 8x16384x16384 5x12000x12000 7x6000x9000 8x8191x8191"
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
  for round in 1 2; do echo "== lab round $round"; timeout 150 carry/gemv_pipe_lab --reps 40 $S; done
} > $T 2>&1
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
for x in 1x4096x4096 1x2048x2048 1x4100x4097; do
  echo "== occtune skinny exhaustive $x" >> $T
  timeout 60 build-h100/autotuner/occtune tune --kernel skinny --shape $x --strategy exhaustive \
    --wide --db /tmp/ex.db 2>&1 | grep -E "^skinny|^cublas" | awk '{print $1, $2, $10, $15}' \
    | sort -k3 -n | head -4 >> $T
done
cat $T
