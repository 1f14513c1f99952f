#!/usr/bin/env bash
# Device call A (one H200): lab/gemv_pipe_lab.cu (built here: nvcc -O3 -std=c++17 -arch=sm_90
# lab/gemv_pipe_lab.cu -lcublas -cudart static) on the M = 1 shapes, twice; then, on the same
# board, every skinny candidate at two of them through `occtune tune` (a7fa542's build, whose
# kernels are HEAD's) for the family's figures beside the lab's.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; T=$R/results.txt
S="1x4096x4096 1x4097x4097 1x2048x2048 1x8192x8192 1x4100x4097 1x3000x3000 1x12001x1501
   1x6002x3001 1x1001x5003 1x777x12345 1x16384x16384"
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
  for round in 1 2; do echo "== lab round $round"; timeout 120 carry/gemv_pipe_lab --reps 40 $S; done
} > $T 2>&1
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
for x in 1x4096x4096 1x4097x4097 1x3000x3000; do
  echo "== occtune skinny exhaustive $x" >> $T
  timeout 60 build-h100/autotuner/occtune tune --kernel skinny --shape $x --strategy exhaustive \
    --wide --db /tmp/ex.db 2>&1 | grep -E "^skinny|^cublas" | awk '{print $1, $2, $10, $15}' \
    | sort -k3 -n | head -6 >> $T
done
cat $T
