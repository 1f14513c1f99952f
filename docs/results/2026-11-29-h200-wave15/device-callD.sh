#!/usr/bin/env bash
# Device call D (one H200): the build of carry/commit, whose kernels' SASS is call C's (the same
# kernel build id; cuobjdump, all 410): compute-sanitizer over every family to the end (call C's
# ran out of time after memcheck), every GPU test, the suite a third time, the N <= 16, N <= 8
# and M = 9-16 sets.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callD; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave15; D14=docs/results/2026-11-29-h200-wave14
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader
  $O --version; } > $T 2>&1
s=$(date +%s)
timeout 300 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
tail -6 $W/sanitize/summary.txt >> $T
s=$(date +%s)
timeout 150 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
s=$(date +%s)
BENCH_TIMEOUT=60 timeout 70 bash scripts/bench-suite.sh -b $O -o $W/suite3 > "$W/suite3.out" 2>&1
step "suite 3" $? $(( $(date +%s) - s ))
echo "== suite3" >> $T; cut -c1-150 $W/suite3/*/summary.txt >> $T
for set in $D14/n16-suite $D/n8-suite $D14/m16-suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=12 timeout 15 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "bench $n" $? $(( $(date +%s) - s ))
  echo "== $n" >> $T; cut -c1-120 $W/$n/*/summary.txt >> $T
done
tar -czf "$R/callD.tgz" -C /tmp callD
grep -E "rc=|passed|geometric|ERROR|HAZ|hazards|error|exit" "$T" | head -40
