#!/usr/bin/env bash
# Device call L (one H200, labs only): lab/rowdot_lab.cu as call H's `final3` (the kernels of
# 266c7b2) against `pairs` (B's misaligned rows at N even copied by 8-byte cp.async into the
# swizzled rows and read as float4s, instead of the dense-B kernel's float loads), alternated
# twice, each run checking every ring against cuBLAS on a NaN-poisoned C.
set -u
. scripts/device-call-setup.sh callL
shapes="9000x14x9000 10000x10x10000 8192x10x8192 6000x10x20000 8192x14x8192 8192x6x8192 777x10x3001 13x14x4099 9x10x17 9000x13x9000 8192x16x8192 8192x12x8192 16384x16x16384 12000x16x12000 4096x16x4096 16x8192x8192"
for run in 1 2; do
  for b in final3 pairs; do
    s=$SECONDS
    timeout 120 carry/rowdot_$b $shapes > "$W/$b-$run.txt" 2>&1
    step "rowdot_$b run $run" $? $((SECONDS - s))
  done
done
tar -czf "$R/callL.tgz" -C /tmp callL
grep -h WRONG "$W"/*.txt | sort | uniq -c
# Per shape, the best ring of each build and run.
for f in "$W"/*.txt; do
  awk -v b="$(basename "$f" .txt)" '/^[0-9]+x/{s=$1; best=""} /^  (m?ring|rowdot|ring-dot)/{ if (best=="") {best=1; printf "%s %s %s\n", b, s, $0} }' "$f"
done | sed -E 's/ +/ /g' | sort -k2,2 -k1,1 | awk '{print $1, $2, $(NF-6), $(NF-5)}'
