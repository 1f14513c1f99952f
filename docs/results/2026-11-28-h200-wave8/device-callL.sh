#!/usr/bin/env bash
# Device call L (one H200), session of the evening: skinny's S = 8 kernel loads 16 rows of the
# large operand per batch instead of 8 (kernels/skinny.cuh, kLoadsAlongX), and the two split-K
# tiles of call K are unregistered again (no gain on the second held-out set). The skinny shapes
# (skinny-suite.txt) with the build before (carry/build-3a68b07.tar.xz: the same skinny code as
# every build since wave 4) and after (carry/build.tar.xz, carry/commit), alternated twice; then
# with the new build every GPU test, the main job twice, the 53-shape suite twice and
# compute-sanitizer. The device tool returns at most eight files: everything goes into
# callL.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callL; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-28-h200-wave8
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
unpack() { rm -rf build-h100 /tmp/pack && tar -xJf "$1" -C /tmp && mv /tmp/pack build-h100; }
skinny() {  # $1: label
  s=$(date +%s)
  BENCH_TIMEOUT=60 timeout 80 bash scripts/bench-suite.sh -b $O -s $D/skinny-suite.txt -o $W/$1 > "$W/$1.out" 2>&1
  step "$1" $? $(( $(date +%s) - s ))
}
{ date -u; echo "before: 3a68b07; after: $(cat carry/commit)"; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader; } > "$W/env.txt" 2>&1
for round in 1 2; do
  unpack carry/build-3a68b07.tar.xz; skinny before$round
  unpack carry/build.tar.xz; skinny after$round
done
$O --version >> "$W/env.txt" 2>&1
s=$(date +%s)
timeout 200 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
for i in 1 2; do
  s=$(date +%s)
  timeout 40 $O tune --config configs/default.toml --db /tmp/main$i.db --quiet > $W/main-job$i.txt 2>&1
  step "main-job $i" $? $(( $(date +%s) - s ))
done
for i in 1 2; do
  s=$(date +%s)
  BENCH_TIMEOUT=80 timeout 100 bash scripts/bench-suite.sh -b $O -o $W/suite$i > "$W/suite$i.out" 2>&1
  step "suite $i" $? $(( $(date +%s) - s ))
done
s=$(date +%s)
timeout 100 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
{ cat "$W/env.txt" "$W/steps.txt"
  grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6
  grep -h "shape wall time" $W/main-job1.txt $W/main-job2.txt
  for r in before1 after1 before2 after2 suite1 suite2; do echo "== $r"; cut -c1-150 $W/$r/*/summary.txt; done
  tail -6 $W/sanitize/summary.txt; } > "$T" 2>&1
tar -czf "$R/callL.tgz" -C /tmp callL
cat "$T" | grep -E "rc=|passed|wall|geometric|m8|control|ERROR|HAZ|hazards"
