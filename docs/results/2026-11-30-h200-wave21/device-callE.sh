#!/usr/bin/env bash
# Device call E (wave 21, one H200): call D's build (carry/commit) on another board. On call D's
# board the default search picked sk 3 or the 16-step tile at 8192^3 (1.032-1.033x), not the
# columns-outside tile of calls A and B: every tma candidate exhaustive at 8192^3 and 4096^3,
# `occtune bench --kernel tma` there, and the held-out partial-wave set once more.
set -u
. scripts/device-call-setup.sh callE
D=docs/results/2026-11-30-h200-wave21
for x in 8192x8192x8192 4096x4096x4096; do
  s=$(date +%s)
  timeout 100 $O tune --kernel tma --shape $x --strategy exhaustive --wide --samples 40 \
    --db /tmp/ex-$x.db --force > $W/ex-$x.txt 2>&1
  step "tune $x" $? $(( $(date +%s) - s ))
  echo "== tune $x" >> $T
  grep -E "^(tma|cublas) " $W/ex-$x.txt | awk '{print $2, $10, $11}' \
    | sed 's/bm=128,bn=256,bk=32,tm=16,tn=8,wm=64,wn=64,stages=4,fbuf=2,consumer_regs=232,//' >> $T
done
s=$(date +%s)
timeout 100 $O bench --kernel tma --shape 4096x4096x4096 --shape 8192x8192x8192 > $W/bench-tma.txt 2>&1
step "bench tma" $? $(( $(date +%s) - s )); grep -E "interleaved|^(4096|8192)x" $W/bench-tma.txt | cut -c1-200 >> $T
s=$(date +%s)
BENCH_TIMEOUT=60 timeout 70 bash scripts/bench-suite.sh -b $O -s $D/tail-suite.txt -o $W/tail > "$W/tail.out" 2>&1
step "bench tail" $? $(( $(date +%s) - s ))
echo "== tail-suite" >> $T; cut -c1-150 $W/tail/*/summary.txt >> $T
tar -czf "$R/callE.tgz" -C /tmp callE
cat "$T" | cut -c1-150
