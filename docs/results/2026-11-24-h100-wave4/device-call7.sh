#!/usr/bin/env bash
# Device call 7 (H100), wave 4: main with every wave-4 branch merged (offline registers from the
# fatbin, device references and workspaces, repacked, cost-model pruning, new skinny), unpacked
# afresh: every GPU test, the install test, then `occtune bench` on the misaligned suite shapes
# (every default family, repacked joining where it copies) in one run.
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
  echo "commit $(cat carry/commit)"; build/autotuner/occtune --version; } > "$R/env.txt" 2>&1
start=$(date +%s)
timeout 330 ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
echo "ctest -L gpu rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
timeout 150 ctest --test-dir build -L install --output-on-failure > "$R/ctest-install.log" 2>&1
echo "ctest -L install rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
BENCH_TIMEOUT=170 bash scripts/bench-suite.sh -s docs/results/2026-11-24-h100-wave4/misaligned-suite.txt -o "$R/bench" > "$R/bench-suite.out" 2>&1
echo "bench-suite rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
tar -czf "$R/bench.tgz" -C "$R" bench && rm -rf "$R/bench"
cat "$R/env.txt" "$R/steps.txt"
grep -E "tests passed|tests failed|\*\*\*|Failed" "$R/ctest-gpu.log" "$R/ctest-install.log" | tail -14
grep -vE "^occtune bench:" "$R/bench-suite.out" | cut -c1-200 | tail -14
