#!/usr/bin/env bash
# Device call D (one H100), wave 8: the grouped split-K second pass and the fbuf-2 cp.async
# tiles as registered. Every GPU test; compute-sanitizer over every family; the lab
# (lab/midsize_lab.cu, the registered kernels) on the weak shapes; the main job; the suite twice.
set -u
rm -rf build-h100 && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callD; mkdir -p $W
O=$PWD/build-h100/autotuner/occtune
{ date -u; echo "commit $(cat carry/commit)"; $O --version;
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader; } > "$R/env.txt" 2>&1
step() { echo "$1 rc=$2 in $3 s" >> "$R/steps.txt"; }
s=$(date +%s)
timeout 220 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
s=$(date +%s)
timeout 150 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s )); cp $W/sanitize/summary.txt $R/sanitize-summary.txt
s=$(date +%s)
timeout 60 carry/midsize_lab 1025x1025x1025 2049x2049x2049 698x2077x4461 3001x1000x4097 \
  717x4789x3329 256x256x16384 128x128x32768 96x96x65536 16384x128x4096 1536x1536x4096 \
  > $W/lab.txt 2>&1
step lab $? $(( $(date +%s) - s ))
s=$(date +%s)
timeout 40 $O tune --config configs/default.toml --db /tmp/main.db --quiet > $W/main-job.txt 2>&1
step main-job $? $(( $(date +%s) - s ))
for i in 1 2; do
  s=$(date +%s)
  BENCH_TIMEOUT=100 timeout 130 bash scripts/bench-suite.sh -b $O -o $W/suite$i > "$R/suite$i.out" 2>&1
  step "suite $i" $? $(( $(date +%s) - s ))
done
tar -czf "$R/callD.tgz" -C /tmp callD
cat "$R/env.txt" "$R/steps.txt" "$R/sanitize-summary.txt"
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$R/ctest-gpu.log" | tail -8
grep -E "tuning wall" $W/main-job.txt
grep -E "geometric|self-check" "$R/suite1.out" "$R/suite2.out"
