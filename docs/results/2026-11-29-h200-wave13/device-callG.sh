#!/usr/bin/env bash
# Device call G (one H200): the build of carry/commit (the final kernels: B's last row left to
# the final sum instead of element copies). Every skinny candidate at three misaligned M = 1
# shapes (the 64-column window at 1x4097x4097: 24.5 us in call C, 26.0 in call E), then
# compute-sanitizer over every family, every GPU test, the misaligned, held-out window and gemv
# sets. (The device time left holds no more; the non-window ring and every other family are
# call E's source, so call E's suite and pipe set stand for them.)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callG; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave13; D9=docs/results/2026-11-29-h200-wave9
D11=docs/results/2026-11-29-h200-wave11
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
for x in 1x4097x4097 1x6002x3001 1x1001x5003; do
  echo "== tune exhaustive $x" >> $T
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db \
    > $W/exhaustive-$x.txt 2>&1
  grep -E "^skinny|^cublas" $W/exhaustive-$x.txt | awk '{print $1, $2, $10, $15}' | sort -k3 -n \
    | head -3 >> $T
done
s=$(date +%s)
timeout 150 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
tail -6 $W/sanitize/summary.txt >> $T
s=$(date +%s)
timeout 150 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
for set in $D11/misaligned-gemv-suite $D/window-suite $D9/gemv-suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=40 timeout 50 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "bench $n" $? $(( $(date +%s) - s ))
  echo "== $n" >> $T; cut -c1-120 $W/$n/*/summary.txt >> $T
done
tar -czf "$R/callG.tgz" -C /tmp callG
grep -E "rc=|passed|geometric|ERROR|HAZ|hazards|^==|^skinny|^cublas" "$T" | head -80
