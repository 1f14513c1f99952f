#!/usr/bin/env bash
# Device call E (H100), wave 6: call D's build with occtune rebuilt after `bench` took tma into
# its default families (autotuner/cli/cmd_bench.cpp; call D's suite ran without tma): tma tuned
# against regblocked and pipelined at 4096³ and 8192³, its plan on the a100 profile, and the
# 53-shape suite twice.
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
cp carry/occtune build/autotuner/occtune && xz -dc carry/libocctune.xz > build/lib/libocctune.so.0.1.0
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callE; mkdir -p $W
{ date -u; echo "commit $(cat carry/commit)"; build/autotuner/occtune --version; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; } > "$R/env.txt" 2>&1
timeout 90 build/autotuner/occtune tune --kernel tma --kernel pipelined --kernel regblocked \
  --shape 4096x4096x4096 --shape 8192x8192x8192 --db /tmp/tma.db > "$W/tma-tune.txt" 2>&1
echo "tune tma rc=$?" >> "$R/steps.txt"
timeout 30 build/autotuner/occtune plan --profile a100 --kernel tma --shape 4096x4096x4096 > "$W/tma-plan-a100.txt" 2>&1
echo "plan a100 rc=$?" >> "$R/steps.txt"
for i in 1 2; do
  start=$(date +%s)
  BENCH_TIMEOUT=120 timeout 135 bash scripts/bench-suite.sh -o "$W/suite$i" > "$R/suite$i.out" 2>&1
  echo "suite $i rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
done
tar -czf "$R/callE.tgz" -C /tmp callE
cat "$R/env.txt" "$R/steps.txt"
grep -E "geometric|self-check" "$R/suite1.out" "$R/suite2.out"
grep -E "^  (tma|regblocked|pipelined): " "$W/tma-tune.txt" | cut -c1-160
