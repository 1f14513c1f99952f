#!/usr/bin/env bash
# Device call E (one H200): the build of carry/commit (skinny's ring for N <= 16 with a large A,
# SkinnyPipeSmallN<16,16,256,3>; the cost model charging re-reads of an operand that fits in
# half the L2 once). The N <= 16 held-out set, every skinny candidate at 8192x16x8192, every GPU
# test, compute-sanitizer over every family (with 260x12x516), the suite once, the M = 9-16 set.
# The session's device time left (about 470 s) holds no more.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callE; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave14
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
s=$(date +%s)
BENCH_TIMEOUT=30 timeout 40 bash scripts/bench-suite.sh -b $O -s $D/n16-suite.txt -o $W/n16 \
  > "$W/n16.out" 2>&1
step "bench n16-suite" $? $(( $(date +%s) - s ))
echo "== n16-suite" >> $T; cut -c1-120 $W/n16/*/summary.txt >> $T
echo "== tune exhaustive 8192x16x8192" >> $T
timeout 30 $O tune --kernel skinny --shape 8192x16x8192 --strategy exhaustive --wide \
  --db /tmp/ex.db > $W/exhaustive-8192x16x8192.txt 2>&1
grep -E "^skinny|^cublas" $W/exhaustive-8192x16x8192.txt | awk '{print $1, $2, $6, $10, $15}' \
  | sort -k4 -n | head -6 >> $T
s=$(date +%s)
timeout 150 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
s=$(date +%s)
timeout 175 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
tail -6 $W/sanitize/summary.txt >> $T
s=$(date +%s)
BENCH_TIMEOUT=55 timeout 60 bash scripts/bench-suite.sh -b $O -o $W/suite1 > "$W/suite1.out" 2>&1
step "suite 1" $? $(( $(date +%s) - s ))
echo "== suite1" >> $T; cut -c1-150 $W/suite1/*/summary.txt >> $T
s=$(date +%s)
BENCH_TIMEOUT=12 timeout 15 bash scripts/bench-suite.sh -b $O -s $D/m16-suite.txt -o $W/m16 \
  > "$W/m16.out" 2>&1
step "bench m16-suite" $? $(( $(date +%s) - s ))
echo "== m16-suite" >> $T; cut -c1-120 $W/m16/*/summary.txt >> $T
tar -czf "$R/callE.tgz" -C /tmp callE
grep -E "rc=|passed|geometric|ERROR|HAZ|hazards|^==|^skinny|^cublas|x16x|x8x|x1x" "$T" | head -60
