#!/usr/bin/env bash
# Device call F (one H200): SMALL_N rings with B's copy as one tested path instead of an
# untested and a tested one that ptxas predicated side by side (kernels/skinny_pipe.cuh).
# lab/rowdot_lab.cu built before (carry/rowdot_lab, the header as on main) and after the change
# (carry/rowdot_lab_new; the change is skinny-b-one-path.diff here, not kept), alternated twice
# on N <= 16 shapes with a large A; each run checks every configuration against cuBLAS on a
# NaN-poisoned C.
set -u
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; T=$R/results.txt
{ date -u; nvidia-smi -L; } > "$T" 2>&1
shapes="8192x16x8192 8192x8x8192 16384x16x16384 4096x16x4096 8192x12x8192 6000x10x20000 2000x16x50000"
for run in 1 2; do
  for b in rowdot_lab rowdot_lab_new; do
    s=$SECONDS
    timeout 120 carry/$b $shapes > "$R/$b-$run.txt" 2>&1
    echo "$b run $run rc=$? in $((SECONDS - s)) s" >> "$T"
  done
done
for f in "$R"/rowdot_lab*-*.txt; do echo "== $(basename $f)"; grep -E "^[0-9]|S64 c16 r64 s4 x2 |S32 c16 r128 s4 |S64 c8 r128 s3 |WRONG|wrong" "$f" | head -40; done >> "$T"
tail -80 "$T"
