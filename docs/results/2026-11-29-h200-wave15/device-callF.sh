#!/usr/bin/env bash
# Device call F (one H200): the build of carry/commit (the ring for N <= 4,
# SkinnyPipeSmallN<8,4,1024,2>; every other kernel's SASS is call D's, cuobjdump). Every skinny
# candidate at five N <= 8 shapes; the N <= 8 and N <= 16 sets; every GPU test; compute-sanitizer
# over every family; the suite once.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callF; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave15; D14=docs/results/2026-11-29-h200-wave14
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader
  $O --version; } > $T 2>&1
for x in 8192x4x8192 16384x4x16384 8192x2x8192 8192x1x8192 8192x8x8192; do
  echo "== tune exhaustive $x" >> $T
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db \
    > $W/exhaustive-$x.txt 2>&1
  grep -E "^skinny|^cublas" $W/exhaustive-$x.txt | awk '{print $1, $2, $6, $10, $15}' \
    | sort -k4 -n | head -5 >> $T
done
for set in $D/n8-suite $D14/n16-suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=12 timeout 15 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "bench $n" $? $(( $(date +%s) - s ))
  echo "== $n" >> $T; cut -c1-120 $W/$n/*/summary.txt >> $T
done
s=$(date +%s)
timeout 150 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
s=$(date +%s)
timeout 200 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
tail -6 $W/sanitize/summary.txt >> $T
s=$(date +%s)
BENCH_TIMEOUT=55 timeout 60 bash scripts/bench-suite.sh -b $O -o $W/suite4 > "$W/suite4.out" 2>&1
step "suite 4" $? $(( $(date +%s) - s ))
echo "== suite4" >> $T; cut -c1-150 $W/suite4/*/summary.txt >> $T
tar -czf "$R/callF.tgz" -C /tmp callF
grep -E "rc=|passed|geometric|ERROR|HAZ|hazards|error|^==|^skinny|^cublas|x4x|x2x|x1x|x8x" "$T" | head -80
