#!/usr/bin/env bash
# Device call B (one H200): the build of carry/commit (call A's, with the twin kernels opted in
# to their shared memory by the built-in families' hook). Every GPU test; then wave 18's call J
# (call G's runs without Nsight Compute): every skinny candidate at five N <= 16 shapes; the
# held-out set of wave 18 (n16-cluster-suite), the HBM target shapes and the earlier N <= 4, 8
# and 16 sets in `bench`; the suite twice; the main job once.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callB; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-30-h200-wave18; D17=docs/results/2026-11-29-h200-wave17
D16=docs/results/2026-11-29-h200-wave16
D15=docs/results/2026-11-29-h200-wave15; D14=docs/results/2026-11-29-h200-wave14
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
s=$(date +%s)
timeout 220 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
for x in 8192x16x8192 8192x12x8192 8192x8x8192 4096x8x4096 2000x16x50000; do
  echo "== tune exhaustive $x" >> $T
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db \
    > $W/exhaustive-$x.txt 2>&1
  grep -E "^skinny|^cublas" $W/exhaustive-$x.txt | awk '{print $1, $2, $6, $10, $15}' \
    | sort -k4 -n | head -5 >> $T
done
for set in $D/n16-cluster-suite $D17/hbm-suite $D17/n16-groups-suite $D16/n4-suite $D15/n8-suite $D14/n16-suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=40 timeout 50 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "bench $n" $? $(( $(date +%s) - s ))
  echo "== $n" >> $T; cut -c1-150 $W/$n/*/summary.txt >> $T
done
for run in 1 2; do
  s=$(date +%s)
  BENCH_TIMEOUT=80 timeout 90 bash scripts/bench-suite.sh -b $O -o $W/suite$run > "$W/suite$run.out" 2>&1
  step "suite $run" $? $(( $(date +%s) - s ))
  echo "== suite $run" >> $T; cut -c1-150 $W/suite$run/*/summary.txt >> $T
done
s=$(date +%s)
timeout 30 $O tune --config configs/default.toml --db /tmp/main.db --quiet > $W/main-job.txt 2>&1
step "main-job" $? $(( $(date +%s) - s ))
grep -h "shape wall time" $W/main-job.txt >> $T
tar -czf "$R/callB.tgz" -C /tmp callB
grep -E "rc=|passed|Failed|geometric|ERROR|^==|^skinny|^cublas|wall|x[0-9]+x" "$T" | cut -c1-130 | head -150
