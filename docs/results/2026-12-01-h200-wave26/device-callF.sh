#!/usr/bin/env bash
# Device call F (one H200, lab only): lab/rowdot_lab.cu with the windowed rings for M <= 16
# (SkinnyPipeWindow, B's rows of any alignment) split over clusters of 2-4 (`mwin ...`, lab-only
# variants beside the registered ones) at shapes with M <= 16 and N odd (B's rows misaligned:
# 16x9999x7777 went to split-K at 0.97x cuBLAS in call E) and aligned controls, twice; every
# ring checked against cuBLAS on a NaN-poisoned C.
set -u
export PATH=/usr/local/cuda/bin:$PATH
R=${OUT:?}; W=/tmp/callF; T=$R/results.txt
rm -rf "$W" && mkdir -p "$W"
{ date -u; echo "build: $(cat carry/commit) (with the lab's mwin series)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > "$T" 2>&1
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
shapes="16x9999x7777 12x8191x8191 16x12345x6789 9x10001x10001 16x16383x16383 13x7777x20001 8x9999x7777 5x12001x12001 16x4097x4097 16x8192x8192 16x16384x16384 8x8192x8192"
for run in 1 2; do
  s=$SECONDS
  timeout 200 carry/rowdot_mwin $shapes > "$W/mwin-$run.txt" 2>&1
  step "rowdot_mwin run $run" $? $((SECONDS - s))
done
tar -czf "$R/callF.tgz" -C /tmp callF
grep -h WRONG "$W"/*.txt | sort | uniq -c >> "$T"
for f in "$W"/*.txt; do
  awk -v b="$(basename "$f" .txt)" '/^[0-9]+x/{s=$1; print b, $0; n=0} /^  (m?ring|mwin|rowdot|ring-dot)/{ if (n<4) {n++; print b, s, $0} }' "$f"
done | sed -E 's/ +/ /g' >> "$T"
cat "$T"
