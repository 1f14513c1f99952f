#!/usr/bin/env bash
# Device call F (one H200): the build of carry/commit (skinny's cp.async ring, SkinnyPipe, as
# registered variants). Every skinny candidate side by side (`tune --strategy exhaustive`, one
# process per shape: the register kernels and the ring measured on the same board); the gemv
# sets and the held-out pipe set through `bench`; then every GPU test, the main job twice, the
# 53-shape suite twice and compute-sanitizer over every family. Everything goes into callF.tgz
# and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callF; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave12; D11=docs/results/2026-11-29-h200-wave11
D10=docs/results/2026-11-29-h200-wave10; D9=docs/results/2026-11-29-h200-wave9
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader
  $O --version; } > "$W/env.txt" 2>&1
for x in 1x4096x4096 1x2048x2048 1x8192x8192 1x16384x16384 1x4100x4097 8x4096x4096 8x8192x8192; do
  s=$(date +%s)
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db \
    > $W/exhaustive-$x.txt 2>&1
  step "exhaustive $x" $? $(( $(date +%s) - s ))
done
for set in $D/pipe-suite $D9/gemv-suite $D10/gemv2-suite $D11/misaligned-gemv-suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=60 timeout 80 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "bench $n" $? $(( $(date +%s) - s ))
done
s=$(date +%s)
timeout 200 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
for i in 1 2; do
  s=$(date +%s)
  timeout 40 $O tune --db /tmp/main$i.db --quiet > $W/main-job$i.txt 2>&1
  step "main-job $i" $? $(( $(date +%s) - s ))
done
for i in 1 2; do
  s=$(date +%s)
  BENCH_TIMEOUT=80 timeout 100 bash scripts/bench-suite.sh -b $O -o $W/suite$i > "$W/suite$i.out" 2>&1
  step "suite $i" $? $(( $(date +%s) - s ))
done
s=$(date +%s)
timeout 120 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
{ cat "$W/env.txt" "$W/steps.txt"
  for x in $W/exhaustive-*.txt; do
    echo "== $x"
    grep -E "^skinny|^cublas" $x | awk '{print $1, $2, $10, $15}' | sort -k3 -n | head -5
  done
  grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6
  grep -h "shape wall time" $W/main-job1.txt $W/main-job2.txt
  for r in pipe-suite gemv-suite gemv2-suite misaligned-gemv-suite suite1 suite2; do
    echo "== $r"; cut -c1-150 $W/$r/*/summary.txt; done
  tail -6 $W/sanitize/summary.txt; } > "$T" 2>&1
tar -czf "$R/callF.tgz" -C /tmp callF
grep -E "rc=|passed|wall|geometric|ERROR|HAZ|hazards" "$T"
