#!/usr/bin/env bash
# Device call (H100), wave 7: the tma family's stream-K configurations (branch tmask; issue #18,
# docs/architecture.md "Issue #18: stream-K in the tma family"). Run from the repository root
# with the build unpacked to ./build. Phase `test`: the GPU tests of the family (every
# configuration against cuBLAS, stream-K on mid-size shapes, every tile split, K = 0); phase
# `tune`: every tma configuration measured (exhaustive) at the shapes stream-K is for and at
# 4096^3 / 8192^3, where it must not lose; `all` (default) does both (at most ~10 minutes: run
# `test` and `tune` as two calls where a call is limited to 600 s). Everything lands in $OUT.
set -u
phase=${1:-all}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=${OUT:?set OUT to the results directory}
OCCTUNE=build/autotuner/occtune
{ date -u; git rev-parse HEAD 2>/dev/null; $OCCTUNE --version; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; } > "$R/env.txt" 2>&1

if [ "$phase" = test ] || [ "$phase" = all ]; then
  timeout 300 ctest --test-dir build -L gpu -R Tma --output-on-failure > "$R/ctest-tma.txt" 2>&1
  echo "ctest -L gpu -R Tma rc=$?" >> "$R/steps.txt"
  tail -5 "$R/ctest-tma.txt"
fi

if [ "$phase" = tune ] || [ "$phase" = all ]; then
  for s in 1536x1536x4096 1024x1024x1024 2048x2048x2048 3000x1000x4096 700x2076x4460 \
           4096x4096x4096 8192x8192x8192; do
    start=$(date +%s)
    # A fresh store each time: every configuration is measured, none taken from an earlier run.
    limit=75; [ "$s" = 8192x8192x8192 ] && limit=120
    timeout $limit $OCCTUNE tune --kernel tma --shape "$s" --strategy exhaustive --wide \
      --db "/tmp/tmask-$s.db" > "$R/tune-$s.txt" 2>&1
    echo "tune $s rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
  done
  # Per shape: each configuration's label, median and ratio to cuBLAS (the "vs cuBLAS" column).
  for f in "$R"/tune-*.txt; do
    echo "== ${f##*/tune-}"
    grep -E "^ *tma " "$f" | awk '{ for (i = 1; i <= NF; ++i) if ($i ~ /^[0-9.]+x$/) r = $i;
                                    print $2, r; r = "" }'
  done | tee "$R/ratios.txt"
fi
cat "$R/env.txt" "$R/steps.txt"
