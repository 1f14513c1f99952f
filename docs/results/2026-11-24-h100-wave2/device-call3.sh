#!/usr/bin/env bash
# Device call 3 (H100), wave 2: the suite's second run (as device-call2.sh) and compute-sanitizer
# over every family, the aligned float4 / 16-byte cp.async shapes included (scripts/sanitize.sh).
set -u
[ -x build/autotuner/occtune ] || { tar -xJf carry/build.tar.xz -C /tmp && rm -rf build && mv /tmp/pack build; }
echo "commit $(cat carry/commit)"
BENCH_TIMEOUT=400 bash scripts/bench-suite.sh -o "$OUT"; echo "bench-suite rc=$?"
d=$(ls -d "$OUT"/*/ | head -1); tail -3 "$d/summary.txt"
start=$(date +%s)
timeout 150 bash scripts/sanitize.sh --occtune build/autotuner/occtune --out /tmp/sanitize > /tmp/sanitize-run.txt 2>&1
rc=$?
{ echo "scripts/sanitize.sh rc=$rc in $(( $(date +%s) - start )) s"; cat /tmp/sanitize-run.txt
  for f in /tmp/sanitize/*; do echo "===== $f"; tail -40 "$f"; done; } > "$OUT/sanitize.log" 2>&1
head -5 "$OUT/sanitize.log"; tail -25 /tmp/sanitize-run.txt
