#!/usr/bin/env bash
# Device call F (one H200, labs only): lab/rowdot_lab.cu as wave 24's `final3` (the kernels of
# 7a104ce) against `aw` (call B's: A's windows inside the dense-B kernel) and `win` (A's windows
# in a kernel of their own, the dense-B kernel holding its own paths only), alternated twice, at
# shapes the dense-B kernel runs (B's rows misaligned, or N = 12), shapes with K not a multiple of
# 4 (A's windows) and aligned controls; every ring checked against cuBLAS on a NaN-poisoned C.
set -u
. scripts/device-call-setup.sh callF
shapes="16384x12x16384 8192x12x8192 12000x12x12000 1000x12x100000 9000x14x9000 10000x10x10000 8192x10x8192 9999x15x7777 8191x16x8191 10000x12x9999 9000x14x9001 16384x16x16383 12000x8x12001 777x12x3001 8192x16x8192 16384x16x16384"
for run in 1 2; do
  for b in final3 aw win; do
    s=$SECONDS
    timeout 250 carry/rowdot_$b $shapes > "$W/$b-$run.txt" 2>&1
    step "rowdot_$b run $run" $? $((SECONDS - s))
  done
done
tar -czf "$R/callF.tgz" -C /tmp callF
grep -h WRONG "$W"/*.txt | sort | uniq -c
# Per shape, the best ring of each build and run.
for f in "$W"/*.txt; do
  awk -v b="$(basename "$f" .txt)" '/^[0-9]+x/{s=$1; best=""} /^  (m?ring|rowdot|ring-dot)/{ if (best=="") {best=1; printf "%s %s %s\n", b, s, $0} }' "$f"
done | sed -E 's/ +/ /g' | sort -k2,2 -k1,1 | awk '{print $1, $2, $(NF-6), $(NF-5), $3, $4, $5, $6, $7, $8, $9}'
