#!/usr/bin/env bash
# Device call C (one H200): the build of carry/commit (call B's kernels). The lab with more
# row-dot shapes (register bounds, deeper batches, other block heights); compute-sanitizer over
# every family (the row-dot shapes 257x4x2052, 129x1x2052 and, in racecheck, 36x4x264 added);
# the suite twice; the main job twice.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callC; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
timeout 60 carry/rowdot_lab --reps 20 8192x1x8192 8192x4x8192 8192x2x8192 > $W/lab.txt 2>&1
echo "lab rc=$?" >> $T
head -12 $W/lab.txt >> $T; grep -A8 "^8192x4x" $W/lab.txt >> $T; grep -A5 "^8192x2x" $W/lab.txt >> $T
s=$(date +%s)
timeout 240 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
tail -6 $W/sanitize/summary.txt >> $T
for i in 1 2; do
  s=$(date +%s)
  BENCH_TIMEOUT=80 timeout 100 bash scripts/bench-suite.sh -b $O -o $W/suite$i > "$W/suite$i.out" 2>&1
  step "suite $i" $? $(( $(date +%s) - s ))
  echo "== suite$i" >> $T; cut -c1-150 $W/suite$i/*/summary.txt >> $T
done
for i in 1 2; do
  s=$(date +%s)
  timeout 40 $O tune --config configs/default.toml --db /tmp/main$i.db --quiet > $W/main-job$i.txt 2>&1
  step "main-job $i" $? $(( $(date +%s) - s ))
  grep -h "shape wall time" $W/main-job$i.txt >> $T
done
tar -czf "$R/callC.tgz" -C /tmp callC
grep -E "rc=|passed|geometric|ERROR|HAZ|hazards|^==|rowdot|cuBLAS|wall|^[0-9]+x" "$T" | cut -c1-150 | head -150
