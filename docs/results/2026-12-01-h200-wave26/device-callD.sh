#!/usr/bin/env bash
# Device call D (one H200, labs only): lab/rowdot_lab.cu as call A's `turn` (0ab2197: the dense-B
# kernel's turned loads; A's windows with B's rows copied as the variant copies them) against
# `dwin` (this commit's: the A-window kernel's DenseWindow, B dense with its lead rows and read
# as turned floats; its rows " dwin", run where dense_b_applies), alternated twice, at shapes
# whose K is not a multiple of 4 (A's windows) with N below the tile's width, and controls
# (A aligned; N the tile's width); every ring checked against cuBLAS on a NaN-poisoned C.
set -u
export PATH=/usr/local/cuda/bin:$PATH
R=${OUT:?}; W=/tmp/callD; T=$R/results.txt
rm -rf "$W" && mkdir -p "$W"
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > "$T" 2>&1
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
shapes="9999x15x7777 9000x14x9001 7001x13x11003 10000x12x9999 16384x13x16383 12000x10x12001 8191x14x8191 20001x11x5001 5000x6x30001 8192x7x8190 3000x6x30001 16384x16x16383 12000x8x12001 8192x14x8192 8192x12x8192 777x14x3001"
for run in 1 2; do
  for b in turn dwin; do
    s=$SECONDS
    timeout 150 carry/rowdot_$b $shapes > "$W/$b-$run.txt" 2>&1
    step "rowdot_$b run $run" $? $((SECONDS - s))
  done
done
tar -czf "$R/callD.tgz" -C /tmp callD
grep -h WRONG "$W"/*.txt | sort | uniq -c >> "$T"
for f in "$W"/*.txt; do
  awk -v b="$(basename "$f" .txt)" '/^[0-9]+x/{s=$1; best=""} /^  (m?ring|rowdot|ring-dot)/{ if (best=="") {best=1; printf "%s %s %s\n", b, s, $0} }' "$f"
done | sed -E 's/ +/ /g' | sort -k2,2 -k1,1 >> "$T"
cat "$T"
