#!/usr/bin/env bash
# Device call D (wave 21, one H200): the build of carry/commit. compute-sanitizer over every
# family with the new 2180x2080x132 (tma's sk 3 whole-wave launch, tail and fix-up); the suite
# twice (scripts/bench-suite.sh); a held-out set of shapes with a partial last wave
# (tail-suite.txt); the main job's three shapes.
set -u
. scripts/device-call-setup.sh callD
D=docs/results/2026-11-30-h200-wave21
s=$(date +%s)
timeout 380 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s ))
tail -6 $W/sanitize/summary.txt >> $T
for run in 1 2; do
  s=$(date +%s)
  BENCH_TIMEOUT=100 timeout 110 bash scripts/bench-suite.sh -b $O -o $W/suite$run > "$W/suite$run.out" 2>&1
  step "suite $run" $? $(( $(date +%s) - s ))
  echo "== suite $run" >> $T; cut -c1-150 $W/suite$run/*/summary.txt >> $T
done
s=$(date +%s)
BENCH_TIMEOUT=60 timeout 70 bash scripts/bench-suite.sh -b $O -s $D/tail-suite.txt -o $W/tail > "$W/tail.out" 2>&1
step "bench tail" $? $(( $(date +%s) - s ))
echo "== tail-suite" >> $T; cut -c1-150 $W/tail/*/summary.txt >> $T
s=$(date +%s)
timeout 30 $O tune --config configs/default.toml --db /tmp/main.db --quiet > $W/main-job.txt 2>&1
step "main-job" $? $(( $(date +%s) - s ))
grep -h "shape wall time" $W/main-job.txt >> $T
tar -czf "$R/callD.tgz" -C /tmp callD
grep -E "UUID|rc=|wall time|geometric|target|lowest|SUMMARY|control|^(4096x4096x4096|8192x8192x8192|4097x4097x4097|5000|4100|4352|6000x4000|3584|7168|2200) " "$T" | cut -c1-130 | head -60
