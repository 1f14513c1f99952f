#!/usr/bin/env bash
# Device call G (one H200, labs only): lab/rowdot_lab.cu built two ways and alternated twice,
# each run checking every ring against cuBLAS on a NaN-poisoned C: `red` (call C's) and `lean4`
# (call F's lean3, with the lean copies also where the tile passes N and N is a multiple of 4:
# zero-filled copies past N), on shapes with such N.
set -u
. scripts/device-call-setup.sh callG
shapes="8192x16x8192 8192x12x8192 16384x12x16384 6000x12x20000 8192x8x8192 4096x16x4096 16x8192x8192 16x16384x16384 16x6000x6000 12x8192x8192 16x2048x16384"
for run in 1 2; do
  for b in red lean4; do
    s=$SECONDS
    timeout 120 carry/rowdot_lab_$b $shapes > "$W/$b-$run.txt" 2>&1
    step "rowdot_lab_$b run $run" $? $((SECONDS - s))
  done
done
cp "$W"/*.txt "$R/"
tar -czf "$R/callG.tgz" -C /tmp callG
grep -h WRONG "$W"/*.txt | sort | uniq -c
for b in red lean4; do for run in 1 2; do echo "== $b $run"; grep -E "^[0-9]|S64 c16 r64 s4 x2 |S32 c16 r128 s4 x2 |S64 c8 r128 s3 |S32 c16 r128 s4 x2 dense|mring S16 c64|mring S16 c32|S16 c16 r256 s3 x2 " "$W/$b-$run.txt" | awk '/^[0-9]/{printf "%s ", $1; next} {printf "[%s %s %s %s %s %s] %s ", $2,$3,$4,$5,$6,$7,$8} END{print ""}'; done; done
