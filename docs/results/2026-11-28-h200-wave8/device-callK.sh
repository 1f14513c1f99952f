#!/usr/bin/env bash
# Device call K (one H200), session of the evening: the split-K 64x64 tile on 4 slices and the
# two-warp 64x32 tile on 2 registered (chosen on the first held-out set in call I's lab). The
# held-out shapes, both sets, with the build before them (carry/build-3a68b07.tar.xz) and after
# (carry/build.tar.xz, carry/commit), in one session; then with the new build every GPU test,
# the main job twice, the 53-shape suite twice and compute-sanitizer.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callK; mkdir -p $W
D=docs/results/2026-11-28-h200-wave8
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$R/steps.txt"; }
unpack() { rm -rf build-h100 /tmp/pack && tar -xJf "$1" -C /tmp && mv /tmp/pack build-h100; }
heldout() {  # $1: label
  for set in heldout-suite heldout-suite2; do
    s=$(date +%s)
    BENCH_TIMEOUT=40 timeout 60 bash scripts/bench-suite.sh -b $O -s $D/$set.txt -o $W/$1-$set > "$R/$1-$set.out" 2>&1
    step "$1 $set" $? $(( $(date +%s) - s ))
    cp $W/$1-$set/*/summary.txt "$R/$1-$set-summary.txt" 2>/dev/null
  done
}
unpack carry/build-3a68b07.tar.xz
{ date -u; echo "before: 3a68b07; after: $(cat carry/commit)"; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader; } > "$R/env.txt" 2>&1
heldout before
unpack carry/build.tar.xz
$O --version >> "$R/env.txt" 2>&1
heldout after
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
  BENCH_TIMEOUT=80 timeout 100 bash scripts/bench-suite.sh -b $O -o $W/suite$i > "$W/suite$i.out" 2>&1
  step "suite $i" $? $(( $(date +%s) - s ))
  cp $W/suite$i/*/summary.txt "$R/suite$i-summary.txt" 2>/dev/null
done
s=$(date +%s)
timeout 100 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s )); cp $W/sanitize/summary.txt $R/sanitize-summary.txt 2>/dev/null
tar -czf "$R/callK.tgz" -C /tmp callK
cat "$R/env.txt" "$R/steps.txt"
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$R/ctest-gpu.log" | tail -6
grep -h "shape wall time" $R/main-job1.txt $R/main-job2.txt
grep -H "geometric" $R/*-summary.txt
tail -5 $R/sanitize-summary.txt
