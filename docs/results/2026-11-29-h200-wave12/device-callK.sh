#!/usr/bin/env bash
# Device call K (one H200): at M = 1 with N from 2560 to 4096 (112 or fewer 32-column tiles at
# N = 3584), the lab's batched timing of occtune's SkinnyPipe kernels beside the lab's 16-column
# tile with two or three blocks per SM (pipe S1 c16 r256 s4 z1); then every skinny candidate at
# 1x3584x3584 through `occtune tune` twice (carry/commit's build), the whole table kept.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$OUT/results.txt
S="1x3584x3584 1x3000x3000 1x2560x2560 1x4096x4096"
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
  for round in 1 2; do
    echo "== lab round $round, batched"; timeout 150 carry/gemv_pipe_lab --reps 40 --batched $S
  done
} > $T 2>&1
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
for i in 1 2; do
  echo "== occtune skinny exhaustive 1x3584x3584, run $i" >> $T
  timeout 60 build-h100/autotuner/occtune tune --kernel skinny --shape 1x3584x3584 \
    --strategy exhaustive --wide --db /tmp/ex$i.db 2>&1 | grep -E "^skinny|^cublas" \
    | awk '{print $1, $2, $10, $11, $12, $15}' | sort -k3 -n >> $T
done
grep -E "^==|^[0-9]|family|c16 r256 s4 z1|pipe S1 c32 r256 s4 z1" $T | grep -v " attr" | head -60
grep -E "cublas|rows=" $T
