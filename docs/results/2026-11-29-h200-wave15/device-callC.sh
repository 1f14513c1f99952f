#!/usr/bin/env bash
# Device call C (one H200): the build of carry/commit (the S = 16 rings' copies without tests,
# the ring for N <= 8, SkinnyPipeSmallN<16,8,512,2>). Every skinny candidate at six N <= 16 or
# M = 16 shapes; compute-sanitizer over every family (260x6x1540 and 36x6x520 added); every
# GPU test; the suite twice; the N <= 16, new N <= 8 and M = 9-16 sets; the main job.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callC; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave15; D14=docs/results/2026-11-29-h200-wave14
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
for x in 8192x8x8192 16384x8x16384 8192x4x8192 8192x16x8192 16x8192x8192 16x16384x16384; do
  echo "== tune exhaustive $x" >> $T
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db \
    > $W/exhaustive-$x.txt 2>&1
  grep -E "^skinny|^cublas" $W/exhaustive-$x.txt | awk '{print $1, $2, $6, $10, $15}' \
    | sort -k4 -n | head -5 >> $T
done
s=$(date +%s)
timeout 200 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
tail -6 $W/sanitize/summary.txt >> $T
s=$(date +%s)
timeout 170 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
for i in 1 2; do
  s=$(date +%s)
  BENCH_TIMEOUT=80 timeout 100 bash scripts/bench-suite.sh -b $O -o $W/suite$i > "$W/suite$i.out" 2>&1
  step "suite $i" $? $(( $(date +%s) - s ))
  echo "== suite$i" >> $T; cut -c1-150 $W/suite$i/*/summary.txt >> $T
done
for set in $D14/n16-suite $D/n8-suite $D14/m16-suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=40 timeout 50 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "bench $n" $? $(( $(date +%s) - s ))
  echo "== $n" >> $T; cut -c1-120 $W/$n/*/summary.txt >> $T
done
for i in 1 2; do
  s=$(date +%s)
  timeout 40 $O tune --config configs/default.toml --db /tmp/main$i.db --quiet > $W/main-job$i.txt 2>&1
  step "main-job $i" $? $(( $(date +%s) - s ))
  grep -h "shape wall time" $W/main-job$i.txt >> $T
done
tar -czf "$R/callC.tgz" -C /tmp callC
grep -E "rc=|passed|geometric|ERROR|HAZ|hazards|^==|^skinny|^cublas|x16x|x8x|x4x|x2x|x7x|16x16384|16x8192" "$T" | head -120
