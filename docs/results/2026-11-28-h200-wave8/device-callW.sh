#!/usr/bin/env bash
# Device call W (one H200), session of 2026-11-28 (night): the stream-K fix-up reads the
# partials as float4 whatever C's alignment (element stores only into a misaligned C), after
# call U found its kernel at 12-14 us of the 83 us launch at 1025^3 with L2 59% busy: with
# N = 1025 every partial was read by elements, each 32-byte sector fetched four times. (Call V's
# in-kernel fix-up was slower and is reverted.) Before: call S's build
# (carry/build-d0c6335.tar.xz, the occtune binary and its libraries); after: carry/build.tar.xz
# (carry/commit). Nsight Compute times both kernels of the StreamKFb launch at 1025^3 and
# 2049^3 in each build; the 1024-1028 shapes, the stream-K shapes and the three held-out sets
# alternated twice; then with the new build every GPU test, the main job twice, the 53-shape
# suite twice and compute-sanitizer. Everything goes into callW.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callW; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-28-h200-wave8
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
unpack() { rm -rf build-h100 /tmp/pack && tar -xJf "$1" -C /tmp && mv /tmp/pack build-h100; }
sets() {  # $1: before or after, $2: round
  for set in mid1025-suite streamk-suite heldout-suite heldout-suite2 heldout-suite3; do
    s=$(date +%s)
    BENCH_TIMEOUT=60 timeout 80 bash scripts/bench-suite.sh -b $O -s $D/$set.txt -o $W/$1$2-$set > "$W/$1$2-$set.out" 2>&1
    step "$1$2 $set" $? $(( $(date +%s) - s ))
  done
}
kernels() {  # $1: before or after: both kernels of the StreamKFb launch, Nsight Compute
  for x in 1025x1025x1025 2049x2049x2049; do
    s=$(date +%s)
    timeout 90 ncu --clock-control none --target-processes all --kernel-name-base mangled \
      -k "regex:StreamKFbILi64ELi128ELi16E" --launch-skip 4 --launch-count 4 --section SpeedOfLight \
      $O tune --shape $x --kernel streamk --strategy exhaustive --db /tmp/ncu.db --quiet --no-isolation > $W/ncu-$1-$x.txt 2>&1
    step "ncu $1 $x" $? $(( $(date +%s) - s ))
  done
}
{ date -u; echo "before: d0c6335; after: $(cat carry/commit)"; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader; } > "$W/env.txt" 2>&1
unpack carry/build-d0c6335.tar.xz; kernels before
unpack carry/build.tar.xz; kernels after
for round in 1 2; do
  unpack carry/build-d0c6335.tar.xz; sets before $round
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
  for f in $W/ncu-*.txt; do echo "== $f"; grep -E "^  [a-z].*\(GemmArgs|Duration" $f | sed -E 's/\(GemmArgs.*//; s/ +/ /g'; done
  grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6
  grep -h "shape wall time" $W/main-job1.txt $W/main-job2.txt
  for r in $(cd $W && ls -d before* after* suite1 suite2 | grep -v '\.out$'); do
    echo "== $r"; cut -c1-150 $W/$r/*/summary.txt; done
  tail -6 $W/sanitize/summary.txt; } > "$T" 2>&1
tar -czf "$R/callW.tgz" -C /tmp callW
cat "$T" | grep -E "rc=|passed|wall|geometric|ERROR|HAZ|hazards|Duration|void"
