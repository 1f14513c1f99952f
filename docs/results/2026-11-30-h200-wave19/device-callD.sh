#!/usr/bin/env bash
# Device call D (one H200): lab/rowdot_lab.cu built before (carry/rowdot_lab, commit bd3219f) and
# after (carry/rowdot_new, the working tree of carry/commit) the steady loop of the rings for
# N <= 16 (SkinnyPipeIn::run_steady), alternated, on the HBM shapes and odd ones (M, K and N
# tails; the lab checks every ring against cuBLAS).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
S="8192x16x8192 8192x12x8192 8192x8x8192 16384x16x16384 4096x16x4096 2000x16x50000 1000x16x1000 8200x13x8195 8195x16x8197"
{ date -u; echo "commit: $(cat carry/commit)"; nvidia-smi -L; } > $OUT/lab.txt
for b in rowdot_lab rowdot_new rowdot_lab rowdot_new; do
  echo "=== $b" >> $OUT/lab.txt
  timeout 100 carry/$b --reps 15 $S >> $OUT/lab.txt 2>&1; echo "$b rc=$?" >> $OUT/lab.txt
done
cat $OUT/lab.txt
