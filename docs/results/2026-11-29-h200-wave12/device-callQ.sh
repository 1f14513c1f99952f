#!/usr/bin/env bash
# Device call Q (one H200): the build of carry/commit (SkinnyPipe's copies planned once per
# thread). The lab's batched timing of the new kernel entered both ways (as the lab does and as
# gemm_entry does); every skinny candidate at seven M <= 8 shapes through `tune`; every GPU test;
# compute-sanitizer over every family; the gemv set and the held-out pipe set; the suite once.
# Each step appends to results.txt as it ends (the session's device time was nearly spent).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callQ; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave12; D9=docs/results/2026-11-29-h200-wave9
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
timeout 60 carry/gemv_pipe_lab --reps 40 --batched 1x3584x3584 1x4096x4096 8x4096x4096 \
  > $W/lab.txt 2>&1
grep -E "^[0-9]|family" $W/lab.txt | grep -v " attr" >> $T
for x in 1x3584x3584 1x4096x4096 1x2048x2048 1x8192x8192 1x16384x16384 8x4096x4096 1x4100x4097; do
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
timeout 120 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
tail -6 $W/sanitize/summary.txt >> $T
for set in $D/pipe-suite $D9/gemv-suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=60 timeout 80 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "bench $n" $? $(( $(date +%s) - s ))
  echo "== $n" >> $T; cut -c1-120 $W/$n/*/summary.txt >> $T
done
s=$(date +%s)
BENCH_TIMEOUT=80 timeout 100 bash scripts/bench-suite.sh -b $O -o $W/suite1 > "$W/suite1.out" 2>&1
step "suite 1" $? $(( $(date +%s) - s ))
echo "== suite1" >> $T; cut -c1-150 $W/suite1/*/summary.txt >> $T
tar -czf "$R/callQ.tgz" -C /tmp callQ
grep -E "rc=|passed|wall|geometric|ERROR|HAZ|hazards|family|^==|x cuBLAS|^skinny|^cublas" "$T" | head -120
