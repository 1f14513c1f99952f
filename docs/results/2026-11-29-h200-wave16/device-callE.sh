#!/usr/bin/env bash
# Device call E (one H200): the build of carry/commit (the row-dot kernel reading B dense for
# N = 3 on 4-column tiles, kDense3). Every skinny candidate at 8192x3x8192 and 4000x3x12000;
# every GPU test (1001x3x2052 added); compute-sanitizer over every family (65x3x2052 added);
# the N <= 4 set.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callE; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave16; D15=docs/results/2026-11-29-h200-wave15
D14=docs/results/2026-11-29-h200-wave14
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
for x in 8192x3x8192 4000x3x12000; do
  echo "== tune exhaustive $x" >> $T
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db \
    > $W/exhaustive-$x.txt 2>&1
  grep -E "^skinny|^cublas" $W/exhaustive-$x.txt | awk '{print $1, $2, $6, $10, $15}' \
    | sort -k4 -n | head -5 >> $T
done
for set in $D/n4-suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=40 timeout 50 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "bench $n" $? $(( $(date +%s) - s ))
  echo "== $n" >> $T; cut -c1-150 $W/$n/*/summary.txt >> $T
done
s=$(date +%s)
timeout 180 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
s=$(date +%s)
timeout 250 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
tail -6 $W/sanitize/summary.txt >> $T
tar -czf "$R/callE.tgz" -C /tmp callE
grep -E "rc=|passed|geometric|ERROR|HAZ|hazards|^==|^skinny|^cublas|wall|x[1-4]x" "$T" | cut -c1-130 | head -90
