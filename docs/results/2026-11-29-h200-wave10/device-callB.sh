#!/usr/bin/env bash
# Device call B (one H200): the narrow S = 1 skinny tiles double-buffered (two register batches
# of eight rows, K tiles of 4096, no barrier between batches; 1a94d4c) against call A's
# single-batch narrow tiles (6bc9f98, carry/build-6bc9f98.tar.xz) on the gemv sets, alternated
# twice; then with the new build every skinny candidate measured exhaustively at four M = 1
# shapes (`occtune tune --strategy exhaustive --wide`, every candidate's row) and skinny's GPU
# tests. Everything goes into callB.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callB; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave10; D9=docs/results/2026-11-29-h200-wave9
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
unpack() { rm -rf build-h100 /tmp/pack && tar -xJf "$1" -C /tmp && mv /tmp/pack build-h100; }
sets() {  # $1: before or after, $2: round
  for set in $D9/gemv-suite $D/gemv2-suite; do
    s=$(date +%s); n=$(basename $set)
    BENCH_TIMEOUT=60 timeout 80 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$1$2-$n > "$W/$1$2-$n.out" 2>&1
    step "$1$2 $n" $? $(( $(date +%s) - s ))
  done
}
{ date -u; echo "before: 6bc9f98; after: $(cat carry/commit)"; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader; } > "$W/env.txt" 2>&1
for round in 1 2; do
  unpack carry/build-6bc9f98.tar.xz; sets before $round
  unpack carry/build.tar.xz; sets after $round
done
$O --version >> "$W/env.txt" 2>&1
for x in 1x4096x4096 1x4097x4097 1x12000x1500 1x2048x2048; do
  s=$(date +%s)
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex.db > $W/exhaustive-$x.txt 2>&1
  step "exhaustive $x" $? $(( $(date +%s) - s ))
done
s=$(date +%s)
timeout 200 ctest --test-dir build-h100 -L gpu -R "Skinny" --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu-skinny $? $(( $(date +%s) - s ))
{ cat "$W/env.txt" "$W/steps.txt"
  grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6
  for x in $W/exhaustive-*.txt; do echo "== $x"; cut -c1-200 $x | head -60; done
  for r in $(cd $W && ls -d before* after* | grep -v '\.out$'); do
    echo "== $r"; cut -c1-150 $W/$r/*/summary.txt; done; } > "$T" 2>&1
tar -czf "$R/callB.tgz" -C /tmp callB
cat "$T" | grep -E "rc=|passed|geometric"
