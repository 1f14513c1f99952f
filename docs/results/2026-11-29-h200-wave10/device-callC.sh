#!/usr/bin/env bash
# Device call C (one H200): skinny's element-load path with interleaved columns (40f833e: the
# narrow tiles back to call A's single batch, plus lanes owning x0 + t + LANES * j without vector
# loads). Before: 6bc9f98 (carry/build-6bc9f98.tar.xz, call A's build); after: carry/build.tar.xz
# (carry/commit). The gemv sets and the misaligned small-M set alternated twice; Nsight Compute
# on skinny's split-16 and narrow kernels at 1x4096x4096 (their durations against cuBLAS's
# 20 us); then with the new build every GPU test, the main job twice, the 53-shape suite twice
# and compute-sanitizer over every family. Everything goes into callC.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callC; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave10; D9=docs/results/2026-11-29-h200-wave9
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
unpack() { rm -rf build-h100 /tmp/pack && tar -xJf "$1" -C /tmp && mv /tmp/pack build-h100; }
sets() {  # $1: before or after, $2: round
  for set in $D9/gemv-suite $D/gemv2-suite $D/misaligned-skinny-suite; do
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
for k in SkinnyILi1ELi0ELi16E SkinnyNarrowILi1ELi0ELi4E SkinnyNarrowILi1ELi0ELi8E; do
  s=$(date +%s)
  timeout 60 ncu --clock-control none --kernel-name-base mangled -k "regex:$k" --launch-skip 10 \
    --launch-count 3 --section SpeedOfLight --section LaunchStats --section Occupancy \
    $O tune --kernel skinny --shape 1x4096x4096 --strategy exhaustive --db /tmp/ncu.db --quiet > $W/ncu-$k.txt 2>&1
  step "ncu $k" $? $(( $(date +%s) - s ))
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
  for f in $W/ncu-*.txt; do echo "== $f"; grep -E "^  [a-zA-Z_].*\(.*\)x\(|Duration|Grid Size|Block Size|Registers Per|Achieved Occupancy|Memory Throughput|DRAM Throughput" $f | head -40; done
  grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6
  grep -h "shape wall time" $W/main-job1.txt $W/main-job2.txt
  for r in $(cd $W && ls -d before* after* suite1 suite2 | grep -v '\.out$'); do
    echo "== $r"; cut -c1-150 $W/$r/*/summary.txt; done
  tail -6 $W/sanitize/summary.txt; } > "$T" 2>&1
tar -czf "$R/callC.tgz" -C /tmp callC
cat "$T" | grep -E "rc=|passed|wall|geometric|ERROR|HAZ|hazards"
