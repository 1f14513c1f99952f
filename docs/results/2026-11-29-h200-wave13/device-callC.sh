#!/usr/bin/env bash
# Device call C (one H200): the build of carry/commit (SkinnyPipeWindow, the ring's cluster
# split, SkinnyPipe<1,64,128,4>). Every skinny candidate through `tune --strategy exhaustive` at
# misaligned and narrow M <= 8 shapes; every GPU test; compute-sanitizer over every family; the
# misaligned, held-out window, gemv and pipe sets; the suite once. Each step appends to
# results.txt as it ends.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callC; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave13; D9=docs/results/2026-11-29-h200-wave9
D11=docs/results/2026-11-29-h200-wave11; D12=docs/results/2026-11-29-h200-wave12
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
for x in 1x4097x4097 1x12001x1501 1x1001x5003 1x777x12345 8x1001x5003 1x1024x16384 \
         8x1024x8192 1x8192x8192; do
  echo "== tune exhaustive $x" >> $T
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db \
    > $W/exhaustive-$x.txt 2>&1
  grep -E "^skinny|^cublas" $W/exhaustive-$x.txt | awk '{print $1, $2, $10, $15}' | sort -k3 -n \
    | head -4 >> $T
done
s=$(date +%s)
timeout 200 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
s=$(date +%s)
timeout 150 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
tail -6 $W/sanitize/summary.txt >> $T
for set in $D11/misaligned-gemv-suite $D/window-suite $D9/gemv-suite $D12/pipe-suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=60 timeout 80 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "bench $n" $? $(( $(date +%s) - s ))
  echo "== $n" >> $T; cut -c1-120 $W/$n/*/summary.txt >> $T
done
s=$(date +%s)
BENCH_TIMEOUT=80 timeout 100 bash scripts/bench-suite.sh -b $O -o $W/suite1 > "$W/suite1.out" 2>&1
step "suite 1" $? $(( $(date +%s) - s ))
echo "== suite1" >> $T; cut -c1-150 $W/suite1/*/summary.txt >> $T
tar -czf "$R/callC.tgz" -C /tmp callC
grep -E "rc=|passed|wall|geometric|ERROR|HAZ|hazards|family|^==|x cuBLAS|^skinny|^cublas" "$T" | head -150
