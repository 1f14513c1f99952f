#!/usr/bin/env bash
# Device call A (one H200, labs only): lab/rowdot_lab.cu built at d8a4d59 (`before`) and with the
# dense-B kernel's turned float loads (`turn`, kernels/skinny_pipe.cuh's dense_turn), alternated
# twice, at shapes whose B rows are misaligned (N not a multiple of 4, B dense: the dense-B
# kernel's float loads), at N = 12 (its float4 loads, unchanged) and aligned controls; every ring
# checked against cuBLAS on a NaN-poisoned C.
set -u
export PATH=/usr/local/cuda/bin:$PATH
R=${OUT:?}; W=/tmp/callA; T=$R/results.txt
rm -rf "$W" && mkdir -p "$W"
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > "$T" 2>&1
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
shapes="9000x14x9000 10000x10x10000 8192x10x8192 8192x14x8192 6000x10x20000 12000x15x12000 16384x13x16384 8192x9x8192 20000x11x5000 1000x14x100000 5000x6x30000 8192x7x8192 11000x5x11000 8192x12x8192 8192x16x8192 777x14x3001 100x10x4096"
for run in 1 2; do
  for b in before turn; do
    s=$SECONDS
    timeout 250 carry/rowdot_$b $shapes > "$W/$b-$run.txt" 2>&1
    step "rowdot_$b run $run" $? $((SECONDS - s))
  done
done
tar -czf "$R/callA.tgz" -C /tmp callA
grep -h WRONG "$W"/*.txt | sort | uniq -c >> "$T"
# Per shape, the best ring of each build and run.
for f in "$W"/*.txt; do
  awk -v b="$(basename "$f" .txt)" '/^[0-9]+x/{s=$1; best=""} /^  (m?ring|rowdot|ring-dot)/{ if (best=="") {best=1; printf "%s %s %s\n", b, s, $0} }' "$f"
done | sed -E 's/ +/ /g' | sort -k2,2 -k1,1 >> "$T"
cat "$T"
