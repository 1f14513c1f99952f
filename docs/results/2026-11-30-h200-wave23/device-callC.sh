#!/usr/bin/env bash
# Device call C (one H200, labs only): lab/rowdot_lab.cu built three ways and alternated twice,
# each run checking every ring against cuBLAS on a NaN-poisoned C: `main` (kernels/skinny_pipe.cuh
# as at carry/commit), `red` (the rings' final sums as float4s on padded rows), `lean` (that and
# the lean copies for the rings for N <= 16).
set -u
. scripts/device-call-setup.sh callC
shapes="8192x16x8192 16384x16x16384 8192x12x8192 4096x16x4096 8192x8x8192 6000x10x20000 2000x16x50000 16x8192x8192 16x16384x16384 12x8192x8192"
for run in 1 2; do
  for b in main red lean; do
    s=$SECONDS
    timeout 120 carry/rowdot_lab_$b $shapes > "$W/$b-$run.txt" 2>&1
    step "rowdot_lab_$b run $run" $? $((SECONDS - s))
  done
done
cp "$W"/*.txt "$R/"
tar -czf "$R/callC.tgz" -C /tmp callC
grep -h WRONG "$W"/*.txt | sort | uniq -c
for b in main red lean; do for run in 1 2; do echo "== $b $run"; grep -E "^[0-9]|S64 c16 r64 s4 x2 |S32 c16 r128 s4 x2 |S64 c8 r128 s3 |S32 c16 r128 s4 x2 dense|mring S16 c64|S16 c16 r256 s3 x2 " "$W/$b-$run.txt" | awk '/^[0-9]/{printf "%s ", $1; next} {printf "[%s %s %s %s %s %s] %s ", $2,$3,$4,$5,$6,$7,$8} END{print ""}'; done; done
