#!/usr/bin/env bash
# Device call A (one H200): the build of carry/commit (skinny's S = 16 rings and the rings that
# copy A as 16-byte vectors, SkinnyPipeVecA). Every skinny candidate at nine shapes (which ring
# wins, and by how much the vector copies of A change the [k][s] ones), compute-sanitizer over
# every family, every GPU test, then the M = 9-16 set and the gemv set.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callA; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave14; D9=docs/results/2026-11-29-h200-wave9
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
for x in 16x8192x8192 12x8192x8192 16x4096x4096 16x2048x16384 13x7001x3001 8x8192x8192 \
         4x8192x8192 8x4096x4096 16x16384x16384; do
  echo "== tune exhaustive $x" >> $T
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db \
    > $W/exhaustive-$x.txt 2>&1
  grep -E "^skinny|^cublas" $W/exhaustive-$x.txt | awk '{print $1, $2, $6, $10, $15}' \
    | sort -k4 -n | head -8 >> $T
  grep -E "^skinny .*(rows=|avec)" $W/exhaustive-$x.txt | awk '{print "  ring", $2, $6, $10, $15}' \
    | sort -k4 -n | grep -E "s=(4|8|16)," | head -12 >> $T
done
s=$(date +%s)
timeout 170 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
tail -6 $W/sanitize/summary.txt >> $T
s=$(date +%s)
timeout 170 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
for set in $D/m16-suite $D9/gemv-suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=50 timeout 60 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "bench $n" $? $(( $(date +%s) - s ))
  echo "== $n" >> $T; cut -c1-120 $W/$n/*/summary.txt >> $T
done
tar -czf "$R/callA.tgz" -C /tmp callA
grep -E "rc=|passed|geometric|ERROR|HAZ|hazards|^==|^skinny|^cublas|ring" "$T" | head -170
