#!/usr/bin/env bash
# Device call C (one H200): the final build (carry/build.tar.xz, carry/commit: 3aa892c's kernels,
# SASS identical, with the default job's warm-up launch gone and sanitize.sh's one-row shapes).
# Every GPU test, the main job twice, the 53-shape suite three times, the middle run with
# 3aa892c's build (carry/build-3aa892c.tar.xz: the same kernels, a warm-up launch in the
# default job) so that the boards' differences are not read as the change's; compute-sanitizer
# over every family; every tma candidate at 4096^3. Everything goes into callC.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callC; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
unpack() { rm -rf build-h100 /tmp/pack && tar -xJf "$1" -C /tmp && mv /tmp/pack build-h100; }
suite() {  # $1: run name
  s=$(date +%s)
  BENCH_TIMEOUT=80 timeout 100 bash scripts/bench-suite.sh -b $O -o $W/$1 > "$W/$1.out" 2>&1
  step "$1" $? $(( $(date +%s) - s ))
}
{ date -u; echo "final: $(cat carry/commit); middle suite run: 3aa892c"; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader; } > "$W/env.txt" 2>&1
unpack carry/build.tar.xz
$O --version >> "$W/env.txt" 2>&1
s=$(date +%s)
timeout 200 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
for i in 1 2; do
  s=$(date +%s)
  timeout 40 $O tune --db /tmp/main$i.db --quiet > $W/main-job$i.txt 2>&1
  step "main-job $i" $? $(( $(date +%s) - s ))
done
suite suite1
unpack carry/build-3aa892c.tar.xz; suite suite-3aa892c
unpack carry/build.tar.xz; suite suite2
s=$(date +%s)
timeout 60 $O tune --kernel tma --shape 4096x4096x4096 --strategy exhaustive --db /tmp/ex-tma.db > $W/exhaustive-tma-4096.txt 2>&1
step "exhaustive tma 4096^3" $? $(( $(date +%s) - s ))
s=$(date +%s)
timeout 100 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
{ cat "$W/env.txt" "$W/steps.txt"
  grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6
  grep -h "shape wall time" $W/main-job1.txt $W/main-job2.txt
  grep -E "^tma|^cublas" $W/exhaustive-tma-4096.txt | cut -c1-200
  for r in suite1 suite-3aa892c suite2; do echo "== $r"; cut -c1-150 $W/$r/*/summary.txt; done
  tail -6 $W/sanitize/summary.txt; } > "$T" 2>&1
tar -czf "$R/callC.tgz" -C /tmp callC
grep -E "rc=|passed|wall|geometric|ERROR|HAZ|hazards" "$T"
