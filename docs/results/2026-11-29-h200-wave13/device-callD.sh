#!/usr/bin/env bash
# Device call D (one H200): the build of carry/commit (call C's, plus the windowed ring's
# element copies at the end of B). compute-sanitizer over every family first (call C's memcheck
# stopped at 1x1x1), every GPU test, every skinny candidate at four misaligned shapes, the main
# job twice, the misaligned, held-out window, gemv and pipe sets, the suite twice.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callD; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave13; D9=docs/results/2026-11-29-h200-wave9
D11=docs/results/2026-11-29-h200-wave11; D12=docs/results/2026-11-29-h200-wave12
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
s=$(date +%s)
timeout 170 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
tail -6 $W/sanitize/summary.txt >> $T
s=$(date +%s)
timeout 200 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
for x in 1x4097x4097 1x12001x1501 1x1001x5003 1x777x12345; do
  echo "== tune exhaustive $x" >> $T
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db \
    > $W/exhaustive-$x.txt 2>&1
  grep -E "^skinny|^cublas" $W/exhaustive-$x.txt | awk '{print $1, $2, $10, $15}' | sort -k3 -n \
    | head -3 >> $T
done
for i in 1 2; do
  s=$(date +%s)
  timeout 40 $O tune --db /tmp/main$i.db --quiet > $W/main-job$i.txt 2>&1
  step "main-job $i" $? $(( $(date +%s) - s ))
  grep -h "shape wall time" $W/main-job$i.txt >> $T
done
for set in $D11/misaligned-gemv-suite $D/window-suite $D9/gemv-suite $D12/pipe-suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=60 timeout 80 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "bench $n" $? $(( $(date +%s) - s ))
  echo "== $n" >> $T; cut -c1-120 $W/$n/*/summary.txt >> $T
done
for i in 1 2; do
  s=$(date +%s)
  BENCH_TIMEOUT=80 timeout 100 bash scripts/bench-suite.sh -b $O -o $W/suite$i > "$W/suite$i.out" 2>&1
  step "suite $i" $? $(( $(date +%s) - s ))
  echo "== suite$i" >> $T; cut -c1-150 $W/suite$i/*/summary.txt >> $T
done
tar -czf "$R/callD.tgz" -C /tmp callD
grep -E "rc=|passed|wall|geometric|ERROR|HAZ|hazards|^==|^skinny|^cublas" "$T" | head -150
