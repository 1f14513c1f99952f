#!/usr/bin/env bash
# Device call 2 (H100): the GPU suite after the merges of this wave (layouts, sgemm, report,
# multi-GPU path with one GPU), the install test running the examples (sgemm_app) against the
# packed install tree, and the library's speed figures (occtune_bench_api).
set -u
[ -x build/autotuner/occtune ] || { tar -xJf carry/build.tar.xz -C /tmp && rm -rf build && mv /tmp/pack build; }
R=$OUT; O=build/autotuner/occtune
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv; echo "commit $(cat carry/commit)"; } > "$R/env.txt"
ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1; echo "ctest-gpu rc=$?" >> "$R/steps.txt"
ctest --test-dir build -L install --output-on-failure -V > "$R/ctest-install.log" 2>&1; echo "ctest-install rc=$?" >> "$R/steps.txt"
build/tests/occtune_bench_api /tmp/api.db > "$R/bench-api.txt" 2>&1; echo "bench-api rc=$?" >> "$R/steps.txt"
cat "$R/steps.txt"; grep -E "tests passed|tests failed|Failed|\*\*\*" "$R/ctest-gpu.log" | tail -8; cat "$R/bench-api.txt" | tail -8
