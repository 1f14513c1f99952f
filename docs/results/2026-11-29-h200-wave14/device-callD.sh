#!/usr/bin/env bash
# Device call D (one H200): the build of carry/commit (the clusters' rank-order sums folded into
# one function; the nine cluster kernels' SASS changed, nothing else). Every GPU test (every
# registered variant against cuBLAS), compute-sanitizer over every family (synccheck: the
# cluster barriers), every skinny candidate at five narrow shapes (the cluster kernels' times
# against calls B of wave 14 and G of wave 13), the window and gemv sets.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callD; mkdir -p $W; T=$R/results.txt
D9=docs/results/2026-11-29-h200-wave9; D13=docs/results/2026-11-29-h200-wave13
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
s=$(date +%s)
timeout 170 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
s=$(date +%s)
timeout 170 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
tail -6 $W/sanitize/summary.txt >> $T
for x in 8x1024x8192 16x2048x16384 1x1001x5003 1x777x12345 1x1024x16384; do
  echo "== tune exhaustive $x" >> $T
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db \
    > $W/exhaustive-$x.txt 2>&1
  grep -E "^skinny .*cluster=1" $W/exhaustive-$x.txt | awk '{print $1, $2, $6, $10, $15}' \
    | sort -k4 -n >> $T
done
for set in $D13/window-suite $D9/gemv-suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=50 timeout 60 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "bench $n" $? $(( $(date +%s) - s ))
  echo "== $n" >> $T; cut -c1-120 $W/$n/*/summary.txt >> $T
done
tar -czf "$R/callD.tgz" -C /tmp callD
cat "$T" | head -150
