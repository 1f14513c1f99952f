#!/usr/bin/env bash
# Device call 2 (H100), wave 3, after the fix of call 1's three failures (a GEMM job read as a
# source job; test_isolation reading the renamed JSON field): the whole GPU suite again, the
# install test (every example against the packed install, source_kernel's app included), the
# NVRTC compile cost per configuration of the 148-configuration example (no cache), and the
# sanitizer over every family (stream-K included).
set -u
[ -x build/autotuner/occtune ] || { tar -xJf carry/build.tar.xz -C /tmp && rm -rf build && mv /tmp/pack build; }  # reuses a build left by an earlier call (see device-call8.sh)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
echo "commit $(cat carry/commit)" > "$R/steps.txt"
start=$(date +%s)
timeout 200 ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
echo "ctest -L gpu rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
timeout 120 ctest --test-dir build -L install --output-on-failure > "$R/ctest-install.log" 2>&1
echo "ctest -L install rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
timeout 90 build/autotuner/occtune compile --job examples/source_kernel/stencil.toml --device 0 \
  --no-cache --format json --output "$R/compile.json" 2> "$R/compile.err"
echo "occtune compile --no-cache rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
timeout 200 bash scripts/sanitize.sh > "$R/sanitize.log" 2>&1
echo "sanitize rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
cat "$R/steps.txt"; tail -4 "$R/compile.err"; tail -12 "$R/sanitize.log"
grep -E "tests passed|tests failed|\*\*\*|Failed" "$R/ctest-gpu.log" "$R/ctest-install.log" | tail -20
