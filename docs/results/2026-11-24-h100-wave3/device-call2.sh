#!/usr/bin/env bash
# Device calls 2 and 3 (H100), wave 3: issue #18's suite (scripts/bench-suite.sh: 53 shapes,
# interleaved tuned/cuBLAS, clocks) with the stream-K family racing, once per call, so the two
# runs the issue asks for are two calls of this script.
set -u
[ -x build/autotuner/occtune ] || { tar -xJf carry/build.tar.xz -C /tmp && rm -rf build && mv /tmp/pack build; }
echo "commit $(cat carry/commit)"
BENCH_TIMEOUT=${BENCH_TIMEOUT:-560} bash scripts/bench-suite.sh -o "$OUT"; echo "bench-suite rc=$?"
d=$(ls -d "$OUT"/*/ | head -1); tail -75 "$d/summary.txt"
