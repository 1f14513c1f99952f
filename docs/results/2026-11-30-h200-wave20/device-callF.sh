#!/usr/bin/env bash
# Device call F (wave 20, one H200): call D's build (carry/commit) on another board, through the
# shared preamble (scripts/device-call-setup.sh, whose first run this is): the suite once more,
# the 12 default shapes of `occtune bench`.
set -u
. scripts/device-call-setup.sh callF
s=$(date +%s)
BENCH_TIMEOUT=100 timeout 110 bash scripts/bench-suite.sh -b $O -o $W/suite > "$W/suite.out" 2>&1
step "suite" $? $(( $(date +%s) - s ))
echo "== suite" >> $T; cut -c1-150 $W/suite/*/summary.txt >> $T
s=$(date +%s)
timeout 120 $O bench > $W/bench-default.txt 2>&1
step "bench default" $? $(( $(date +%s) - s ))
echo "== bench (12 default shapes)" >> $T; grep -vE "^occtune" $W/bench-default.txt | cut -c1-150 >> $T
tar -czf "$R/callF.tgz" -C /tmp callF
grep -E "UUID|rc=|geometric|target|lowest|^(4096x4096x4096|8192x8192x8192|2048x2048x2048|1024x1024x1024) " "$T" | cut -c1-130 | head -40
