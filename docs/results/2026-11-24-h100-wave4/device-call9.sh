#!/usr/bin/env bash
# Device call 9 (H100), wave 4: the build of calls 7-8 (commit 4a41f21 binaries), unpacked
# afresh: issue #18's 53-shape suite (configs/bench/suite.txt) twice, through
# scripts/bench-suite.sh, with everything wave 4 added (new skinny, repacked, cost-model pruning).
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
for run in 1 2; do
  start=$(date +%s)
  BENCH_TIMEOUT=280 bash scripts/bench-suite.sh -o "$R/suite$run" > "$R/suite$run.out" 2>&1
  echo "suite run $run rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
done
tar -czf "$R/suite.tgz" -C "$R" suite1 suite2 && rm -rf "$R/suite1" "$R/suite2"
cat "$R/steps.txt"
for run in 1 2; do grep -E "geometric|self-check" "$R/suite$run.out"; done
grep -vE "^occtune bench:" "$R/suite1.out" | awk '{print $1, $3, $9}' | head -60
