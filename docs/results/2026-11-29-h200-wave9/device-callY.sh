#!/usr/bin/env bash
# Device call Y (one H200), session of 2026-11-29: the second kernel of every two-kernel launch
# as a programmatic dependent of the first on sm_90 (split-K's reduction, skinny's GEMM after a
# kernel that zeroes its tickets instead of a memset; the stream-K fix-up already was, call X;
# the tma persistent kernel now also lets its fix-up start early). Before: 2099e82 (call X's
# kernels; carry/build-2099e82.tar.xz, the occtune binary and its libraries); after:
# carry/build.tar.xz (carry/commit). The split-K, skinny, stream-K, 1024-1028 and held-out sets
# alternated twice; then with the new build every GPU test, the main job twice, the 53-shape
# suite twice and compute-sanitizer. Everything goes into callY.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callY; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave9; D8=docs/results/2026-11-28-h200-wave8
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
unpack() { rm -rf build-h100 /tmp/pack && tar -xJf "$1" -C /tmp && mv /tmp/pack build-h100; }
sets() {  # $1: before or after, $2: round
  for set in $D/splitk-suite $D/gemv-suite $D8/mid1025-suite $D8/streamk-suite \
             $D8/heldout-suite $D8/heldout-suite2 $D8/heldout-suite3; do
    s=$(date +%s); n=$(basename $set)
    BENCH_TIMEOUT=60 timeout 80 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$1$2-$n > "$W/$1$2-$n.out" 2>&1
    step "$1$2 $n" $? $(( $(date +%s) - s ))
  done
}
{ date -u; echo "before: 2099e82; after: $(cat carry/commit)"; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader; } > "$W/env.txt" 2>&1
for round in 1 2; do
  unpack carry/build-2099e82.tar.xz; sets before $round
  unpack carry/build.tar.xz; sets after $round
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
  for r in $(cd $W && ls -d before* after* suite1 suite2 | grep -v '\.out$'); do
    echo "== $r"; cut -c1-150 $W/$r/*/summary.txt; done
  tail -6 $W/sanitize/summary.txt; } > "$T" 2>&1
tar -czf "$R/callY.tgz" -C /tmp callY
cat "$T" | grep -E "rc=|passed|wall|geometric|ERROR|HAZ|hazards"
