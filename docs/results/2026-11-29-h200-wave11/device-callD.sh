#!/usr/bin/env bash
# Device call D (one H200). Before: 3aa892c (carry/build-3aa892c.tar.xz); after: carry/build.tar.xz
# (carry/commit: call B's realigned windows as variants of their own beside the element loads,
# every earlier kernel's SASS unchanged, and the default job without a warm-up launch). The
# misaligned M = 1 set and the gemv sets alternated before/after; every skinny candidate at
# 1x4097x4097 and 1x1001x5003; then with the after build every GPU test, the main job twice,
# the 53-shape suite twice and compute-sanitizer over every family. Everything goes into
# callD.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callD; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave11; D10=docs/results/2026-11-29-h200-wave10
D9=docs/results/2026-11-29-h200-wave9
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
unpack() { rm -rf build-h100 /tmp/pack && tar -xJf "$1" -C /tmp && mv /tmp/pack build-h100; }
sets() {  # $1: before or after, $2: round
  for set in $D/misaligned-gemv-suite $D10/gemv2-suite $D9/gemv-suite; do
    s=$(date +%s); n=$(basename $set)
    BENCH_TIMEOUT=60 timeout 80 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$1$2-$n > "$W/$1$2-$n.out" 2>&1
    step "$1$2 $n" $? $(( $(date +%s) - s ))
  done
}
{ date -u; echo "before: 3aa892c; after: $(cat carry/commit)"; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader; } > "$W/env.txt" 2>&1
for round in 1 2; do
  unpack carry/build-3aa892c.tar.xz; sets before $round
  unpack carry/build.tar.xz; sets after $round
done
$O --version >> "$W/env.txt" 2>&1
for x in 1x4097x4097 1x1001x5003; do
  s=$(date +%s)
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db > $W/exhaustive-$x.txt 2>&1
  step "exhaustive $x" $? $(( $(date +%s) - s ))
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
timeout 100 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
{ cat "$W/env.txt" "$W/steps.txt"
  for x in $W/exhaustive-*.txt; do echo "== $x"; grep -E "^skinny|^kernel" $x | cut -c1-200; done
  grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6
  grep -h "shape wall time" $W/main-job1.txt $W/main-job2.txt
  for r in $(cd $W && ls -d before* after* suite1 suite2 | grep -v '\.out$'); do
    echo "== $r"; cut -c1-150 $W/$r/*/summary.txt; done
  tail -6 $W/sanitize/summary.txt; } > "$T" 2>&1
tar -czf "$R/callD.tgz" -C /tmp callD
grep -E "rc=|passed|wall|geometric|ERROR|HAZ|hazards" "$T"
