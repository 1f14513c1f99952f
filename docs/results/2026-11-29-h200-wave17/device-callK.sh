#!/usr/bin/env bash
# Device call K (one H200): the build of carry/commit (call G's kernels and two S = 16 rings
# with K split over a cluster of 2, SkinnyPipeCluster<16,32,128,4,2> and <16,64,64,4,2>). Every
# GPU test; compute-sanitizer over every family; every skinny candidate at three M <= 16 shapes;
# the M = 9-16 set of wave 14 and the suite in `bench`; the main job.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callK; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
s=$(date +%s)
timeout 200 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
s=$(date +%s)
timeout 330 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
tail -6 $W/sanitize/summary.txt >> $T
for x in 16x8192x8192 12x8192x8192 9x8192x8192; do
  echo "== tune exhaustive $x" >> $T
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db \
    > $W/exhaustive-$x.txt 2>&1
  grep -E "^skinny|^cublas" $W/exhaustive-$x.txt | awk '{print $1, $2, $6, $10, $15}' \
    | sort -k4 -n | head -5 >> $T
done
for set in docs/results/2026-11-29-h200-wave14/m16-suite configs/bench/suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=80 timeout 90 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "bench $n" $? $(( $(date +%s) - s ))
  echo "== $n" >> $T; cut -c1-150 $W/$n/*/summary.txt >> $T
done
s=$(date +%s)
timeout 30 $O tune --config configs/default.toml --db /tmp/main.db --quiet > $W/main-job.txt 2>&1
step "main-job" $? $(( $(date +%s) - s ))
grep -h "shape wall time" $W/main-job.txt >> $T
tar -czf "$R/callK.tgz" -C /tmp callK
grep -E "rc=|passed|geometric|ERROR|HAZ|hazards|^==|^skinny|^cublas|wall|^1[0-9]x|^9x|^[0-9]+x[0-9]+x" "$T" | cut -c1-130 | head -120
