#!/usr/bin/env bash
# Device call X (one H200), session of 2026-11-28 (night), the session's last device minutes:
# the stream-K fix-up kernel as a programmatic dependent of the persistent kernel (sm_90: the
# persistent blocks trigger at their start, the fix-up's blocks work out their tile and wait
# with griddepcontrol.wait), after call W left 1025^3 at 0.898-0.899. Before: call W's build
# (carry/build-51daafa.tar.xz, the occtune binary and its libraries); after:
# carry/build.tar.xz (carry/commit). The 1024-1028 shapes and the stream-K shapes alternated
# twice, then every GPU test with the new build. Everything goes into callX.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callX; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-28-h200-wave8
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
unpack() { rm -rf build-h100 /tmp/pack && tar -xJf "$1" -C /tmp && mv /tmp/pack build-h100; }
sets() {  # $1: before or after, $2: round
  for set in mid1025-suite streamk-suite; do
    s=$(date +%s)
    BENCH_TIMEOUT=60 timeout 80 bash scripts/bench-suite.sh -b $O -s $D/$set.txt -o $W/$1$2-$set > "$W/$1$2-$set.out" 2>&1
    step "$1$2 $set" $? $(( $(date +%s) - s ))
  done
}
{ date -u; echo "before: 51daafa; after: $(cat carry/commit)"; nvidia-smi -L; } > "$W/env.txt" 2>&1
for round in 1 2; do
  unpack carry/build-51daafa.tar.xz; sets before $round
  unpack carry/build.tar.xz; sets after $round
done
$O --version >> "$W/env.txt" 2>&1
s=$(date +%s)
timeout 170 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
{ cat "$W/env.txt" "$W/steps.txt"
  grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6
  for r in $(cd $W && ls -d before* after* | grep -v '\.out$'); do
    echo "== $r"; cut -c1-150 $W/$r/*/summary.txt; done; } > "$T" 2>&1
tar -czf "$R/callX.tgz" -C /tmp callX
grep -E "rc=|passed|geometric|^1025x|^1028x1028x1028|^2049" "$T"
