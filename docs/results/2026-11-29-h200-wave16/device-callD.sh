#!/usr/bin/env bash
# Device call D (one H200): the build of carry/commit (the row-dot kernel with call C's two
# more variants, SkinnyRowDot<4,16,1,8,2> and <4,16,4,2,2>). Every skinny candidate at two
# 256 MiB N <= 4 shapes; every GPU test; compute-sanitizer over every family; the N <= 4, N <= 8
# and N <= 16 sets; the suite once; the main job once.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callD; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave16; D15=docs/results/2026-11-29-h200-wave15
D14=docs/results/2026-11-29-h200-wave14
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
for x in 8192x1x8192 8192x4x8192; do
  echo "== tune exhaustive $x" >> $T
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db \
    > $W/exhaustive-$x.txt 2>&1
  grep -E "^skinny|^cublas" $W/exhaustive-$x.txt | awk '{print $1, $2, $6, $10, $15}' \
    | sort -k4 -n | head -5 >> $T
done
for set in $D/n4-suite $D15/n8-suite $D14/n16-suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=40 timeout 50 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "bench $n" $? $(( $(date +%s) - s ))
  echo "== $n" >> $T; cut -c1-150 $W/$n/*/summary.txt >> $T
done
s=$(date +%s)
timeout 180 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
s=$(date +%s)
timeout 210 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
tail -6 $W/sanitize/summary.txt >> $T
s=$(date +%s)
BENCH_TIMEOUT=80 timeout 90 bash scripts/bench-suite.sh -b $O -o $W/suite > "$W/suite.out" 2>&1
step "suite" $? $(( $(date +%s) - s ))
echo "== suite" >> $T; cut -c1-150 $W/suite/*/summary.txt >> $T
s=$(date +%s)
timeout 30 $O tune --config configs/default.toml --db /tmp/main.db --quiet > $W/main-job.txt 2>&1
step "main-job" $? $(( $(date +%s) - s ))
grep -h "shape wall time" $W/main-job.txt >> $T
tar -czf "$R/callD.tgz" -C /tmp callD
grep -E "rc=|passed|geometric|ERROR|HAZ|hazards|^==|^skinny|^cublas|wall|x[1-4]x" "$T" | cut -c1-130 | head -90
