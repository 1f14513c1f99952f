#!/usr/bin/env bash
# Device call J (one H200), session of the evening: the build at carry/commit with the repacked
# family over wave 8's mid-size tiles (SplitKFb 64x128 on 2 and 4 slices, PipelinedFb 64x128,
# SplitK 64x64 on 2 slices) and the 256x128 split-K tile on 64 slices registered (call I's lab).
# Every GPU test; the main job twice; bench-search's default against exhaustive on misaligned
# mid sizes; the 53-shape suite twice; the held-out shapes once; compute-sanitizer.
set -u
rm -rf build-h100 && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callJ; mkdir -p $W
O=$PWD/build-h100/autotuner/occtune
D=docs/results/2026-11-28-h200-wave8
{ date -u; echo "commit $(cat carry/commit)"; $O --version; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader; } > "$R/env.txt" 2>&1
step() { echo "$1 rc=$2 in $3 s" >> "$R/steps.txt"; }
s=$(date +%s)
timeout 200 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
for i in 1 2; do
  s=$(date +%s)
  timeout 40 $O tune --config configs/default.toml --db /tmp/main$i.db --quiet > $R/main-job$i.txt 2>&1
  step "main-job $i" $? $(( $(date +%s) - s ))
done
for i in 1 2; do
  s=$(date +%s)
  BENCH_TIMEOUT=80 timeout 100 bash scripts/bench-suite.sh -b $O -o $W/suite$i > "$R/suite$i.out" 2>&1
  step "suite $i" $? $(( $(date +%s) - s ))
done
s=$(date +%s)
BENCH_TIMEOUT=40 timeout 60 bash scripts/bench-suite.sh -b $O -s $D/heldout-suite.txt -o $W/heldout > "$R/heldout.out" 2>&1
step heldout $? $(( $(date +%s) - s ))
families=coarsened,regblocked,pipelined,splitk,skinny,streamk,tma,repacked
s=$(date +%s)
timeout 90 bash scripts/bench-search.sh -b $O -k "$families" -m 4 -r 0 -o $W/bs \
  1025x1025x1025 3001x1000x4097 > "$R/bench-search.out" 2>&1
step bench-search $? $(( $(date +%s) - s ))
s=$(date +%s)
timeout 100 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s )); cp $W/sanitize/summary.txt $R/sanitize-summary.txt 2>/dev/null
tail -5 $W/sanitize.out >> $R/sanitize-summary.txt
tar -czf "$R/callJ.tgz" -C /tmp callJ
cat "$R/env.txt" "$R/steps.txt"
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$R/ctest-gpu.log" | tail -6
grep -h "shape wall time" $R/main-job1.txt $R/main-job2.txt
grep -E "geometric|self-check" "$R/suite1.out" "$R/suite2.out" "$R/heldout.out"
grep -E "within|target" "$R/bench-search.out" | tail -4
tail -3 $R/sanitize-summary.txt
