#!/usr/bin/env bash
# Device call S (one H200), session of 2026-11-28 (late): the review's refactor of the stream-K
# fix-up launch (the tile size from the variant, kTileFloats; the thread mapping through
# fixup_thread, shared with the host emulator): the same grid as call Q's build, so the GPU
# tests, the stream-K shapes once and compute-sanitizer over every family confirm it. The build
# of carry/build.tar.xz (carry/commit). Everything goes into callS.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callS; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-28-h200-wave8
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L; $O --version; } > "$W/env.txt" 2>&1
s=$(date +%s)
timeout 200 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
for set in streamk-suite mid1025-suite; do
  s=$(date +%s)
  BENCH_TIMEOUT=60 timeout 80 bash scripts/bench-suite.sh -b $O -s $D/$set.txt -o $W/$set > "$W/$set.out" 2>&1
  step "$set" $? $(( $(date +%s) - s ))
done
s=$(date +%s)
timeout 100 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
{ cat "$W/env.txt" "$W/steps.txt"
  grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6
  for r in streamk-suite mid1025-suite; do echo "== $r"; cut -c1-150 $W/$r/*/summary.txt; done
  tail -6 $W/sanitize/summary.txt; } > "$T" 2>&1
tar -czf "$R/callS.tgz" -C /tmp callS
cat "$T" | grep -E "rc=|passed|geometric|ERROR|HAZ|hazards|streamk   "
