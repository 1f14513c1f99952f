#!/usr/bin/env bash
# Device call 4 (H100), wave 3: the sanitizer over every family (stream-K's persistent kernel
# and fix-up included) and the main job (`occtune tune`, nine families), timed.
set -u
[ -x build/autotuner/occtune ] || { tar -xJf carry/build.tar.xz -C /tmp && rm -rf build && mv /tmp/pack build; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "commit $(cat carry/commit)"
start=$(date +%s)
timeout 300 bash scripts/sanitize.sh > "$OUT/sanitize.log" 2>&1; echo "sanitize rc=$? in $(( $(date +%s) - start )) s"
tail -15 "$OUT/sanitize.log"
start=$(date +%s.%N)
timeout 200 build/autotuner/occtune tune --db /tmp/main.db > "$OUT/main-job.txt" 2> "$OUT/main-job.err"
echo "main job rc=$? in $(python3 -c "import time;print(round(time.time()-$start,1))") s"
grep -E '^shape|tuning|wall' "$OUT/main-job.txt" | head; tail -25 "$OUT/main-job.txt"
