#!/usr/bin/env bash
# Device call G (one H200, labs only): call F again with the header as committed for call H
# (`final2`: the rings' sums pushed to the inbox straight from sum_slots, no round trip through
# shared memory; the dense-B kernel at N a multiple of 4 only from 8 slabs a block), against
# `swz` (5584700), alternated twice, each run checking every ring against cuBLAS on a
# NaN-poisoned C.
set -u
. scripts/device-call-setup.sh callG
shapes="8192x16x8192 16384x16x16384 8192x12x8192 16384x12x16384 4096x16x4096 4096x12x4096 8192x8x8192 12000x16x12000 12000x12x12000 32768x16x4096 2000x16x50000 1000x12x100000 6000x10x20000 8192x10x8192 16x8192x8192 16x16384x16384 12x8192x8192 777x12x3001 777x9x3001 13x12x4099 16x1000x4097 100x8x1000 16x12x64 33x12x1 17x16x17"
for run in 1 2; do
  for b in swz final2; do
    s=$SECONDS
    timeout 120 carry/rowdot_$b $shapes > "$W/$b-$run.txt" 2>&1
    step "rowdot_$b run $run" $? $((SECONDS - s))
  done
done
tar -czf "$R/callG.tgz" -C /tmp callG
cp "$T" "$R/"
grep -h WRONG "$W"/*.txt | sort | uniq -c
# Per shape, the best ring of each build and run.
for f in "$W"/*.txt; do
  awk -v b="$(basename "$f" .txt)" '/^[0-9]+x/{s=$1; best=""} /^  (m?ring|rowdot|ring-dot)/{ if (best=="") {best=1; printf "%s %s %s\n", b, s, $0} }' "$f"
done | sed -E 's/ +/ /g' | sort -k2,2 -k1,1 | cut -c1-110
