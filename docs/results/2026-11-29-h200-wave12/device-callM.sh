#!/usr/bin/env bash
# Device call M (one H200): `tune --kernel skinny --strategy exhaustive` at 1x3584x3584 with one
# of its measurement settings changed at a time (in-process instead of the worker, one sample
# per turn, no L2 flush), twice each, to see which moves its figures toward the lab's (call K).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$OUT/results.txt
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
date -u > $T
for round in 1 2; do
  for opts in "" "--no-isolation" "--batch 1" "--flush-l2 false" "--no-isolation --batch 1"; do
    echo "== round $round: $opts" >> $T
    timeout 60 build-h100/autotuner/occtune tune --kernel skinny --shape 1x3584x3584 \
      --strategy exhaustive --wide --db /tmp/m$round-${opts// /_}.db $opts 2>&1 \
      | grep -E "^cublas|s=1,side=0,splits=1,lanes=8,rows=(256|128)" \
      | awk '{print $1, $2, $10, $11, $12, $15}' >> $T
  done
done
cat $T
