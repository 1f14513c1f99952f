#!/usr/bin/env bash
# Device call E (one H200): lab/rowdot_lab.cu with the rings of 64 rows of C in five stages
# (carry/commit's list), twice, at the N <= 16 HBM shapes and odd ones.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
S="8192x16x8192 8192x12x8192 16384x16x16384 4096x16x4096 12000x16x12000 8195x16x8197 1000x16x1000 16x8192x8192"
{ date -u; echo "commit: $(cat carry/commit)"; nvidia-smi -L; } > $OUT/lab.txt
for r in 1 2; do
  echo "=== run $r" >> $OUT/lab.txt
  timeout 120 carry/rowdot_lab --reps 15 $S >> $OUT/lab.txt 2>&1; echo "rc=$?" >> $OUT/lab.txt
done
grep -E "===|cuBLAS|s5|s4 x2 |s4  |WRONG|rc=" $OUT/lab.txt | grep -v dense
