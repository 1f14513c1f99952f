#!/usr/bin/env bash
# Device call Z (one H200), session of 2026-11-29: the final build of the session. Call Y's
# change less skinny's part (its tickets are zeroed by a memset again, as in 2099e82): split-K's
# reduction and the stream-K fix-up as programmatic dependents on sm_90. Before: 2099e82
# (carry/build-2099e82.tar.xz); after: carry/build.tar.xz (carry/commit). The same sets as call
# Y alternated twice; Nsight Compute names cuBLAS's kernel, grid and time at the held-out shapes
# furthest below it (433x539x1869, 976x297x730, 1438x438x278, 1x4096x4096); then with the new
# build every GPU test, the main job twice, the 53-shape suite twice and compute-sanitizer.
# Everything goes into callZ.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callZ; mkdir -p $W; T=$R/results.txt
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
for x in 433x539x1869 976x297x730 1438x438x278 1x4096x4096; do
  s=$(date +%s)
  timeout 60 ncu --clock-control none --target-processes all --kernel-name-base mangled \
    -k "regex:xmma|cutlass|sgemm|gemv|splitKreduce" --launch-skip 4 --launch-count 3 \
    --section SpeedOfLight --section LaunchStats $O bench --shape $x --kernel splitk --quiet > $W/ncu-cublas-$x.txt 2>&1
  step "ncu cublas $x" $? $(( $(date +%s) - s ))
done
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
  for f in $W/ncu-*.txt; do echo "== $f"; grep -E "^  [a-zA-Z_].*\(.*\)x\(|Duration|Grid Size|Block Size|Registers Per|Compute \(SM\)|Memory Throughput" $f | head -24; done
  grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6
  grep -h "shape wall time" $W/main-job1.txt $W/main-job2.txt
  for r in $(cd $W && ls -d before* after* suite1 suite2 | grep -v '\.out$'); do
    echo "== $r"; cut -c1-150 $W/$r/*/summary.txt; done
  tail -6 $W/sanitize/summary.txt; } > "$T" 2>&1
tar -czf "$R/callZ.tgz" -C /tmp callZ
cat "$T" | grep -E "rc=|passed|wall|geometric|ERROR|HAZ|hazards"
