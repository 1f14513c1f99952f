#!/usr/bin/env bash
# Device call E (one H200): the build with the __syncwarp before skinny's second cluster
# barrier (carry/build.tar.xz, carry/commit): compute-sanitizer over every family first (call D's
# synccheck found divergent threads at that barrier), then every GPU test, then the two gemv
# sets once. Everything goes into callE.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callE; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave10; D9=docs/results/2026-11-29-h200-wave9
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L; $O --version; } > "$W/env.txt" 2>&1
s=$(date +%s)
timeout 110 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
s=$(date +%s)
timeout 150 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
for set in $D9/gemv-suite $D/gemv2-suite; do
  s=$(date +%s); n=$(basename $set)
  BENCH_TIMEOUT=30 timeout 40 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n > "$W/$n.out" 2>&1
  step "$n" $? $(( $(date +%s) - s ))
done
{ cat "$W/env.txt" "$W/steps.txt"
  grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6
  tail -6 $W/sanitize/summary.txt
  for r in gemv-suite gemv2-suite; do echo "== $r"; cut -c1-150 $W/$r/*/summary.txt; done; } > "$T" 2>&1
tar -czf "$R/callE.tgz" -C /tmp callE
cat "$T" | grep -E "rc=|passed|geometric|ERROR|HAZ|hazards"
