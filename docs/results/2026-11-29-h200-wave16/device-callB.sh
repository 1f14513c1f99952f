#!/usr/bin/env bash
# Device call B (one H200): the build of carry/commit (the row-dot kernel for N <= 4,
# SkinnyRowDot). The lab again with occtune's grid (its rings now launched right, beside the
# row-dot variants); every skinny candidate at eight N <= 4 shapes; every GPU test; the N <= 16,
# N <= 8 and new N <= 4 sets.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callB; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave16; D15=docs/results/2026-11-29-h200-wave15
D14=docs/results/2026-11-29-h200-wave14
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
timeout 60 carry/rowdot_lab --reps 20 8192x1x8192 8192x4x8192 16384x4x16384 8192x8x8192 \
  1000x3x4097 > $W/lab.txt 2>&1
echo "lab rc=$?" >> $T
for x in 8192x1x8192 16384x1x16384 4096x1x4096 8192x2x8192 8192x4x8192 16384x4x16384 \
         1000x3x4097 12940x8x1160; do
  echo "== tune exhaustive $x" >> $T
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db \
    > $W/exhaustive-$x.txt 2>&1
  grep -E "^skinny|^cublas" $W/exhaustive-$x.txt | awk '{print $1, $2, $6, $10, $15}' \
    | sort -k4 -n | head -6 >> $T
done
s=$(date +%s)
timeout 200 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
for set in $D/n4-suite $D15/n8-suite $D14/n16-suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=40 timeout 50 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "bench $n" $? $(( $(date +%s) - s ))
  echo "== $n" >> $T; cut -c1-150 $W/$n/*/summary.txt >> $T
done
tar -czf "$R/callB.tgz" -C /tmp callB
cat $T
