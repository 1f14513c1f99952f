#!/usr/bin/env bash
# Device call H (one H200, lab only): is a non-portable cluster of 12 or 16 blocks the way for
# few rows of C with a long K (1000x12x100001 went to a 16-row ring at 0.88x cuBLAS in calls E
# and G)? lab/rowdot_lab.cu built at fa7b722 in a scratch worktree with SkinnyPipeIn's limit of
# 8 splits raised to 16 and cudaFuncAttributeNonPortableClusterSizeAllowed set for clusters of
# more than 8 (`x16`: the 64-row ring over 3-8, 12 and 16, the 32-row ring over 12 and 16, each
# with its dense-B and A-window kernels), twice; every ring checked against cuBLAS on a
# NaN-poisoned C.
set -u
export PATH=/usr/local/cuda/bin:$PATH
R=${OUT:?}; W=/tmp/callH; T=$R/results.txt
rm -rf "$W" && mkdir -p "$W"
{ date -u; echo "build: $(cat carry/commit) (scratch: 16 splits)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > "$T" 2>&1
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
shapes="1000x12x100001 1000x12x100000 500x16x200001 2000x10x50001 777x12x3001 1000x15x40000"
for run in 1 2; do
  s=$SECONDS
  timeout 120 carry/rowdot_x16 $shapes > "$W/x16-$run.txt" 2>&1
  step "rowdot_x16 run $run" $? $((SECONDS - s))
done
tar -czf "$R/callH.tgz" -C /tmp callH
grep -h WRONG "$W"/*.txt | sort | uniq -c >> "$T"
for f in "$W"/*.txt; do
  awk -v b="$(basename "$f" .txt)" '/^[0-9]+x/{s=$1; print b, $0; n=0} /^  (m?ring|mwin|rowdot|ring-dot)/{ if (n<5) {n++; print b, s, $0} }' "$f"
done | sed -E 's/ +/ /g' >> "$T"
grep -E "error|failed" "$W"/*.txt | head -5 >> "$T"
cat "$T"
