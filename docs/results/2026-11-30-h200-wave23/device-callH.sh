#!/usr/bin/env bash
# Device call H (one H200): the build of carry/commit (the rings' final sums as float4s and their
# lean copies; the gate's flush check). The yardstick (lab/hbm_read_lab.cu: a 1 GiB read after
# the read flush), `ctest -L gpu`, `bench` on the HBM shapes of both sides (wave 22's set twice,
# and this wave's new set), on the earlier held-out sets for M or N <= 16 (wave 14's M <= 16,
# wave 17's and wave 18's N <= 16), the whole suite, and the main job.
set -u
. scripts/device-call-setup.sh callH
S=docs/results/2026-11-30-h200-wave23
t0=$SECONDS; timeout 120 carry/hbm_read_lab > "$R/hbm_read_lab.txt" 2>&1
step hbm_read_lab $? $((SECONDS - t0))
grep -E "best|wrong" "$R/hbm_read_lab.txt" | grep -E "^read|wrong" >> "$T"
s=$SECONDS
timeout 240 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $((SECONDS - s))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> "$T"
suite() {  # NAME FILE
  local t0=$SECONDS
  BENCH_TIMEOUT=100 timeout 120 bash scripts/bench-suite.sh -b "$O" -s "$2" -o "$W/$1" \
    > "$W/$1.out" 2>&1
  step "bench $1" $? $((SECONDS - t0))
  echo "== $1" >> "$T"; cut -c1-150 "$W"/$1/*/summary.txt >> "$T"
}
suite hbm-both-1 docs/results/2026-11-30-h200-wave22/hbm-both-suite.txt
suite hbm-new $S/hbm-new-suite.txt
suite hbm-both-2 docs/results/2026-11-30-h200-wave22/hbm-both-suite.txt
suite m16 docs/results/2026-11-29-h200-wave14/m16-suite.txt
suite n16-groups docs/results/2026-11-29-h200-wave17/n16-groups-suite.txt
suite n16-cluster docs/results/2026-11-30-h200-wave18/n16-cluster-suite.txt
s=$SECONDS
BENCH_TIMEOUT=100 timeout 110 bash scripts/bench-suite.sh -b "$O" -o "$W/suite-1" \
  > "$W/suite-1.out" 2>&1
step "suite 1" $? $((SECONDS - s))
echo "== suite 1" >> "$T"; cut -c1-150 "$W"/suite-1/*/summary.txt >> "$T"
s=$SECONDS
timeout 30 "$O" tune --config configs/default.toml --db /tmp/main.db --quiet > "$W/main-job.txt" 2>&1
step main-job $? $((SECONDS - s))
grep -h "shape wall time" "$W/main-job.txt" >> "$T"
tar -czf "$R/callH.tgz" -C /tmp callH
grep -E "rc=|tests|geometric|lowest|wall time|1024 MiB|hbm_|^(4096x4096x4096|8192x8192x8192) " \
  "$T" | cut -c1-150 | head -90
