#!/usr/bin/env bash
# Device call C (one H200): call B's build (carry/commit). The main job twice (tuning time); the
# default strategy at three M = 8-16 shapes (tuning time, and its pick against call B's
# exhaustive best); N <= 16 with a large A (n16-suite, held out); the M = 9-16 set in the tn
# layout (register kernels: the rings are nn only); every skinny candidate at 8192x16x8192.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callC; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave14
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
for i in 1 2; do
  s=$(date +%s)
  timeout 40 $O tune --db /tmp/main$i.db --quiet > $W/main-job$i.txt 2>&1
  step "main-job $i" $? $(( $(date +%s) - s ))
  grep -h "shape wall time" $W/main-job$i.txt >> $T
done
for x in 16x8192x8192 8x8192x8192 12x8192x8192; do
  echo "== tune default $x" >> $T
  timeout 40 $O tune --shape $x --db /tmp/def-$x.db > $W/default-$x.txt 2>&1
  grep -hE "shape wall time|: .* candidates" $W/default-$x.txt | head -12 >> $T
  tail -1 $W/default-$x.txt >> $T
done
for x in 8192x16x8192; do
  echo "== tune exhaustive $x" >> $T
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db \
    > $W/exhaustive-$x.txt 2>&1
  grep -E "^skinny|^cublas" $W/exhaustive-$x.txt | awk '{print $1, $2, $6, $10, $15}' \
    | sort -k4 -n | head -8 >> $T
done
s=$(date +%s)
BENCH_TIMEOUT=60 timeout 70 bash scripts/bench-suite.sh -b $O -s $D/n16-suite.txt -o $W/n16 \
  > "$W/n16.out" 2>&1
step "bench n16-suite" $? $(( $(date +%s) - s ))
echo "== n16-suite" >> $T; cut -c1-120 $W/n16/*/summary.txt >> $T
s=$(date +%s)
BENCH_TIMEOUT=60 timeout 70 bash scripts/bench-suite.sh -b $O -s $D/m16-suite.txt -o $W/m16-tn \
  -- --layout tn > "$W/m16-tn.out" 2>&1
step "bench m16-suite tn" $? $(( $(date +%s) - s ))
echo "== m16-suite tn" >> $T; cut -c1-120 $W/m16-tn/*/summary.txt >> $T
tar -czf "$R/callC.tgz" -C /tmp callC
cat "$T" | head -120
