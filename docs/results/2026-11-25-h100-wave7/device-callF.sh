#!/usr/bin/env bash
# Device call F (H100), wave 7: main with tma's any-C epilogue, repacked over tma, tma stream-K
# and the 2 s tuning rules merged. Every GPU test; every tma configuration measured exhaustively
# at the shapes stream-K is for and at 4096³ (device-tmask.sh's tune phase, fewer shapes); the
# skinny lab (lab/skinny_lab.cu) when carried.
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callF; mkdir -p $W
O=build/autotuner/occtune
{ date -u; echo "commit $(cat carry/commit)"; $O --version; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; } > "$R/env.txt" 2>&1
start=$(date +%s)
timeout 290 ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
echo "ctest -L gpu rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
for s in 1536x1536x4096 3000x1000x4096 700x2076x4460 4096x4096x4096; do
  start=$(date +%s)
  timeout 50 $O tune --kernel tma --shape "$s" --strategy exhaustive --wide \
    --db "/tmp/tmask-$s.db" > "$W/tune-$s.txt" 2>&1
  echo "tune tma $s rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
done
for f in "$W"/tune-*.txt; do
  echo "== ${f##*/tune-}"
  grep -E "^ *tma " "$f" | awk '{ for (i = 1; i <= NF; ++i) if ($i ~ /^[0-9.]+x$/) r = $i;
                                  print $2, r; r = "" }'
done > "$R/tma-ratios.txt"
if [ -x carry/lab/skinny_lab ]; then
  timeout 100 carry/lab/skinny_lab > "$R/skinny_lab.txt" 2>&1
  echo "skinny lab rc=$?" >> "$R/steps.txt"
fi
tar -czf "$R/callF.tgz" -C /tmp callF
cat "$R/env.txt" "$R/steps.txt"
grep -E "tests passed|tests failed|\*\*\*|Failed" "$R/ctest-gpu.log" | tail -12
cat "$R/tma-ratios.txt"
grep -iE "best|target|fail|total" "$R/skinny_lab.txt" 2>/dev/null | tail -30
