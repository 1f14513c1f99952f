#!/usr/bin/env bash
# Device call N (one H200), session of the evening: call M again with the early batch limited to
# S <= 8 (S = 16 back to its earlier loop; carry/build.tar.xz, carry/commit) against the build
# before call M's change (carry/build-b444324.tar.xz), the skinny shapes alternated twice; then
# every GPU test. No suite or sanitizer: the S <= 8 code is call M's (sanitized there) and the
# S = 16 code call L's (sanitized there); the device time left was about 6 minutes.
# Everything goes into callN.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callN; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-28-h200-wave8
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
unpack() { rm -rf build-h100 /tmp/pack && tar -xJf "$1" -C /tmp && mv /tmp/pack build-h100; }
skinny() {  # $1: label
  s=$(date +%s)
  BENCH_TIMEOUT=60 timeout 80 bash scripts/bench-suite.sh -b $O -s $D/skinny-suite.txt -o $W/$1 > "$W/$1.out" 2>&1
  step "$1" $? $(( $(date +%s) - s ))
}
{ date -u; echo "before: b444324; after: $(cat carry/commit)"; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader; } > "$W/env.txt" 2>&1
for round in 1 2; do
  unpack carry/build-b444324.tar.xz; skinny before$round
  unpack carry/build.tar.xz; skinny after$round
done
$O --version >> "$W/env.txt" 2>&1
s=$(date +%s)
timeout 200 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
{ cat "$W/env.txt" "$W/steps.txt"
  grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6
  for r in before1 after1 before2 after2; do echo "== $r"; cut -c1-150 $W/$r/*/summary.txt; done
  true; } > "$T" 2>&1
tar -czf "$R/callN.tgz" -C /tmp callN
cat "$T" | grep -E "rc=|passed|geometric|m8|control"
