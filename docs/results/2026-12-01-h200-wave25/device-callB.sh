#!/usr/bin/env bash
# Device call B (one H200, labs only): lab/rowdot_lab.cu as wave 24's `final3` (the kernels of
# 7a104ce) against `aw` (the dense-B kernel of the 64-row rings reading A's misaligned rows
# through aligned windows), alternated twice, at shapes with K (A's leading dimension) not a
# multiple of 4 and aligned controls; every ring checked against cuBLAS on a NaN-poisoned C.
set -u
. scripts/device-call-setup.sh callB
shapes="9999x15x7777 8191x16x8191 8192x16x8190 10000x12x9999 5000x16x20001 20001x16x5001 777x12x3001 12000x8x12001 3000x6x30001 16384x16x16383 9000x14x9001 1000x12x100001 4097x16x4099 8192x16x8192 16384x16x16384 8192x12x8192 12000x8x12000 9000x14x9000 4096x16x4096"
for run in 1 2; do
  for b in final3 aw; do
    s=$SECONDS
    timeout 250 carry/rowdot_$b $shapes > "$W/$b-$run.txt" 2>&1
    step "rowdot_$b run $run" $? $((SECONDS - s))
  done
done
tar -czf "$R/callB.tgz" -C /tmp callB
grep -h WRONG "$W"/*.txt | sort | uniq -c
# Per shape, the best ring of each build and run.
for f in "$W"/*.txt; do
  awk -v b="$(basename "$f" .txt)" '/^[0-9]+x/{s=$1; best=""} /^  (m?ring|rowdot|ring-dot)/{ if (best=="") {best=1; printf "%s %s %s\n", b, s, $0} }' "$f"
done | sed -E 's/ +/ /g' | sort -k2,2 -k1,1 | awk '{print $1, $2, $(NF-6), $(NF-5), $3, $4, $5, $6, $7, $8, $9}'
