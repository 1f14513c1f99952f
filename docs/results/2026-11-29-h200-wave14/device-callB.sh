#!/usr/bin/env bash
# Device call B (one H200): the build of carry/commit (every plain ring with S >= 4 copies A as
# 16-byte vectors, as call A's SkinnyPipeVecA did; the S = 16 rings; the cluster rings with S =
# 8 and 16 on the vector copies, new here). Every skinny candidate at four shapes (the narrow
# ones take the cluster rings), compute-sanitizer over every family, every GPU test, the suite
# twice, then the M = 9-16, gemv, window and pipe sets.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callB; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave14; D9=docs/results/2026-11-29-h200-wave9
D12=docs/results/2026-11-29-h200-wave12; D13=docs/results/2026-11-29-h200-wave13
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
for x in 16x2048x16384 8x1024x8192 16x8192x8192 8x8192x8192; do
  echo "== tune exhaustive $x" >> $T
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db \
    > $W/exhaustive-$x.txt 2>&1
  grep -E "^skinny|^cublas" $W/exhaustive-$x.txt | awk '{print $1, $2, $6, $10, $15}' \
    | sort -k4 -n | head -8 >> $T
done
s=$(date +%s)
timeout 170 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
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
for set in $D/m16-suite $D9/gemv-suite $D13/window-suite $D12/pipe-suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=50 timeout 60 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "bench $n" $? $(( $(date +%s) - s ))
  echo "== $n" >> $T; cut -c1-120 $W/$n/*/summary.txt >> $T
done
tar -czf "$R/callB.tgz" -C /tmp callB
grep -E "rc=|passed|geometric|ERROR|HAZ|hazards|^==|^skinny|^cublas" "$T" | head -60
