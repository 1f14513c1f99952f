#!/usr/bin/env bash
# Device call E (wave 20, one H200): call D's build (carry/commit). The suite twice
# (scripts/bench-suite.sh), a held-out set of large aligned shapes (large-suite.txt), the main
# job once.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callE; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-30-h200-wave20
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
for run in 1 2; do
  s=$(date +%s)
  BENCH_TIMEOUT=100 timeout 110 bash scripts/bench-suite.sh -b $O -o $W/suite$run > "$W/suite$run.out" 2>&1
  step "suite $run" $? $(( $(date +%s) - s ))
  echo "== suite $run" >> $T; cut -c1-150 $W/suite$run/*/summary.txt >> $T
done
s=$(date +%s)
BENCH_TIMEOUT=60 timeout 70 bash scripts/bench-suite.sh -b $O -s $D/large-suite.txt -o $W/large > "$W/large.out" 2>&1
step "bench large" $? $(( $(date +%s) - s ))
echo "== large" >> $T; cut -c1-150 $W/large/*/summary.txt >> $T
s=$(date +%s)
timeout 30 $O tune --config configs/default.toml --db /tmp/main.db --quiet > $W/main-job.txt 2>&1
step "main-job" $? $(( $(date +%s) - s ))
grep -h "shape wall time" $W/main-job.txt >> $T
tar -czf "$R/callE.tgz" -C /tmp callE
grep -E "rc=|geometric|target|^(4096x4096x4096|8192x8192x8192|2048x2048x2048|1536x1536x4096|3072|5120|4096x8192|8192x4096|2560|12288) |wall" "$T" | cut -c1-130 | head -60
