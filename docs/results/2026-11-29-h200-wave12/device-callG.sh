#!/usr/bin/env bash
# Device call G (one H200): occtune's SkinnyPipe kernels run inside lab/gemv_pipe_lab.cu beside
# the lab's own kernels of the same configuration (one process, interleaved), to tell whether
# the lab's lead over the family's figures in call F is the kernel's code or the measurement;
# then the same shapes through `occtune tune --kernel skinny --strategy exhaustive` (carry/commit's
# build) on the same board.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; T=$R/results.txt
S="1x4096x4096 1x2048x2048 1x3584x3584 8x4096x4096 1x8192x8192 1x16384x16384 4x4096x4096"
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
  for round in 1 2; do echo "== lab round $round"; timeout 150 carry/gemv_pipe_lab --reps 40 $S; done
} > $T 2>&1
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
for x in $S; do
  echo "== occtune skinny exhaustive $x" >> $T
  timeout 60 build-h100/autotuner/occtune tune --kernel skinny --shape $x --strategy exhaustive \
    --wide --db /tmp/ex.db 2>&1 | grep -E "^skinny|^cublas" | awk '{print $1, $2, $10, $15}' \
    | sort -k3 -n | head -4 >> $T
done
cat $T
