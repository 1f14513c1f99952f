#!/usr/bin/env bash
# Device call C (one H200, labs only): call B's lab showed rows of A that start 32 bytes past a
# 128-byte line 11-15% slower (8192x16x8200 79.6 us against 8192x16x8192 71.6). The lean copies
# put 8 threads (128 bytes) on a row of A a copy, so such a row's piece spans two lines. lab/
# rowdot_lab.cu as built at 0ab2197 (`turn`), with 16 threads a row (`tpr16`: 256 bytes), and
# with a whole slab's row a copy (`tprmax`: 16-64 threads), alternated twice, at K whose rows
# start on a line and K whose rows do not; every ring checked against cuBLAS on a NaN-poisoned C.
set -u
export PATH=/usr/local/cuda/bin:$PATH
R=${OUT:?}; W=/tmp/callC; T=$R/results.txt
rm -rf "$W" && mkdir -p "$W"
{ date -u; echo "build: $(cat carry/commit) (tpr16 and tprmax: its kLeanTpr changed)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > "$T" 2>&1
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
shapes="8192x16x8200 8192x16x8192 8192x14x8200 8192x14x8192 9000x14x8960 9000x14x9000 10000x10x10000 10000x10x10016 16384x16x16384 16384x12x16388 12000x8x12004 12000x8x12000 5000x16x20004 1000x12x100000 12000x16x12000 20000x16x5000 16x8192x8200 16x16384x16384 8x8192x8192"
for run in 1 2; do
  for b in turn tpr16 tprmax; do
    s=$SECONDS
    timeout 150 carry/rowdot_$b $shapes > "$W/$b-$run.txt" 2>&1
    step "rowdot_$b run $run" $? $((SECONDS - s))
  done
done
tar -czf "$R/callC.tgz" -C /tmp callC
grep -h WRONG "$W"/*.txt | sort | uniq -c >> "$T"
for f in "$W"/*.txt; do
  awk -v b="$(basename "$f" .txt)" '/^[0-9]+x/{s=$1; best=""} /^  (m?ring|rowdot|ring-dot)/{ if (best=="") {best=1; printf "%s %s %s\n", b, s, $0} }' "$f"
done | sed -E 's/ +/ /g' | sort -k2,2 -k1,1 >> "$T"
cat "$T"
