#!/usr/bin/env bash
# Device call G (H100), wave 7: the final kernels (tma with 2 stream-K configurations, repacked
# over 3 tma ones): every GPU test, repacked raced on the misaligned suite shapes, and the
# 53-shape suite twice.
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callG; mkdir -p $W
O=build/autotuner/occtune
{ date -u; echo "commit $(cat carry/commit)"; $O --version; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; } > "$R/env.txt" 2>&1
start=$(date +%s)
timeout 250 ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
echo "ctest -L gpu rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
timeout 60 $O tune --kernel repacked --shape 1025x1025x1025 --shape 2049x2049x2049 \
  --shape 3001x1000x4097 --shape 698x2077x4461 --shape 717x4789x3329 --shape 4097x4097x4097 \
  --strategy exhaustive --db /tmp/rep.db > "$W/repacked-tune.txt" 2>&1
echo "tune repacked rc=$?" >> "$R/steps.txt"
for i in 1 2; do
  start=$(date +%s)
  BENCH_TIMEOUT=100 timeout 130 bash scripts/bench-suite.sh -o "$W/suite$i" > "$R/suite$i.out" 2>&1
  echo "suite $i rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
done
tar -czf "$R/callG.tgz" -C /tmp callG
cat "$R/env.txt" "$R/steps.txt"
grep -E "tests passed|tests failed|\*\*\*|Failed" "$R/ctest-gpu.log" | tail -8
grep -E "^  repacked: " "$W/repacked-tune.txt" | cut -c1-200
grep -E "geometric|self-check" "$R/suite1.out" "$R/suite2.out"
