#!/usr/bin/env bash
# Device call F (one H200, labs only): lab/rowdot_lab.cu built two ways and alternated twice,
# each run checking every ring against cuBLAS on a NaN-poisoned C: `red` (call C's) and `lean3`
# (call D's lean2, and the lean copies also for the rings for M <= 16 whose B is the large
# operand), with more shapes of M <= 16.
set -u
. scripts/device-call-setup.sh callF
shapes="8192x16x8192 16384x16x16384 8192x12x8192 4096x16x4096 8192x8x8192 6000x10x20000 2000x16x50000 16x8192x8192 16x16384x16384 12x8192x8192 16x4096x4096 16x2048x16384 16x20000x6000"
for run in 1 2; do
  for b in red lean3; do
    s=$SECONDS
    timeout 120 carry/rowdot_lab_$b $shapes > "$W/$b-$run.txt" 2>&1
    step "rowdot_lab_$b run $run" $? $((SECONDS - s))
  done
done
cp "$W"/*.txt "$R/"
tar -czf "$R/callF.tgz" -C /tmp callF
grep -h WRONG "$W"/*.txt | sort | uniq -c
for b in red lean3; do for run in 1 2; do echo "== $b $run"; grep -E "^[0-9]|S64 c16 r64 s4 x2 |S32 c16 r128 s4 x2 |S64 c8 r128 s3 |S32 c16 r128 s4 x2 dense|mring S16 c64|mring S16 c32|S16 c16 r256 s3 x2 " "$W/$b-$run.txt" | awk '/^[0-9]/{printf "%s ", $1; next} {printf "[%s %s %s %s %s %s] %s ", $2,$3,$4,$5,$6,$7,$8} END{print ""}'; done; done
