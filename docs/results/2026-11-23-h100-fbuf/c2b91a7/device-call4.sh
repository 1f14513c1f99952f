#!/usr/bin/env bash
# One device call: unpack the build, GPU suite, bench twice, sanitizer, bench-search.
set -u
tar -xJf carry/build.tar.xz -C /tmp && rm -rf build-h100 && mv /tmp/pack build-h100
R=$OUT/r; mkdir -p "$R"
{ date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv; echo "commit $(cat carry/commit)"; } > "$R/env.txt"
step() { local name=$1; shift; local t0=$(date +%s.%N); "$@"; local rc=$?; echo "$name rc=$rc $(echo "$(date +%s.%N) - $t0" | bc) s" | tee -a "$R/steps.txt"; }
step ctest bash -c "ctest --test-dir build-h100 -L gpu -j1 --output-on-failure > $R/ctest-gpu.log 2>&1"
step bench bash -c "build-h100/autotuner/occtune bench > $R/bench.txt 2>&1"
[ "${QUICK:-0}" = 1 ] && exit 0
step bench2 bash -c "build-h100/autotuner/occtune bench > $R/bench-repeat.txt 2>&1"
step sanitize bash -c "bash scripts/sanitize.sh --occtune build-h100/autotuner/occtune --out /tmp/san > $R/sanitize-run.log 2>&1; cp -r /tmp/san $R/sanitize"
step bench-search bash -c "bash scripts/bench-search.sh -b build-h100/autotuner/occtune -k coarsened,regblocked,pipelined,splitk,tiled_dynamic,tiled_static,naive -m 1 -o /tmp/bs > $R/bench-search.log 2>&1; cp -r /tmp/bs $R/bench-search"
tail -5 "$R/ctest-gpu.log"; cat "$R/bench.txt"
