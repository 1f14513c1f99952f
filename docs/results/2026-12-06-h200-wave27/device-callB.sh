#!/usr/bin/env bash
# Device call B (one GPU): the build of carry/commit (call A's build with the 32-row ring over
# 7, the 16-row ring over 7 in place of 8 and the 32-row 8-column ring over 2 registered).
# `ctest -L gpu`; compute-sanitizer over skinny (call A's shapes: every ring for N <= 16 and its
# window kernels at K odd and 2 mod 4): memcheck, synccheck, racecheck at one, the planted-fault
# control; the yardstick (lab/hbm_read_lab.cu); `bench` on wave 25's set (K not a multiple of
# 4) twice, wave 26's two sets, wave 24's and wave 22's, the whole suite twice, the main job.
set -u
. scripts/device-call-setup.sh callB
s=$SECONDS
timeout 230 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $((SECONDS - s))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> "$T"
shapes="1x1x1 17x17x17 257x129x515 1x257x515 12x260x516 260x12x516 260x6x1540 257x4x2052
  100x16x1028 70x8x520 90x7x1030 65x10x1030 129x8x771 1000x15x4097 64x15x69 130x12x2051
  65x14x1031 130x13x4099 129x6x2051 200x5x8191 1000x12x4099 64x9x517 70x14x2048
  33x16x1031 100x16x1027 17x12x2053 40x9x1030 70x6x2049 33x8x1026 129x16x2050 1000x13x4101"
sanitize memcheck 200 $shapes
sanitize synccheck 200 $shapes
sanitize racecheck 100 33x12x1031
sanitize_control
t0=$SECONDS; timeout 120 carry/hbm_read_lab > "$W/hbm_read_lab.txt" 2>&1
step hbm_read_lab $? $((SECONDS - t0))
grep -E "best|wrong" "$W/hbm_read_lab.txt" | grep -E "^read|wrong" >> "$T"
suite hbm-25-1 docs/results/2026-12-01-h200-wave25/hbm-wave25-suite.txt
suite hbm-26 docs/results/2026-12-01-h200-wave26/hbm-wave26-suite.txt
suite hbm-26m docs/results/2026-12-01-h200-wave26/hbm-wave26m-suite.txt
suite hbm-24 docs/results/2026-11-30-h200-wave24/hbm-wave24-suite.txt
suite hbm-22 docs/results/2026-11-30-h200-wave22/hbm-both-suite.txt
suite hbm-25-2 docs/results/2026-12-01-h200-wave25/hbm-wave25-suite.txt
suite suite-1
suite suite-2
s=$SECONDS
timeout 30 "$O" tune --config configs/default.toml --db /tmp/main.db --quiet > "$W/main-job.txt" 2>&1
step main-job $? $((SECONDS - s))
grep -h "shape wall time" "$W/main-job.txt" >> "$T"
tar -czf "$R/callB.tgz" -C /tmp callB
grep -E "rc=|tests|SUMMARY|candidates|control|Failed|geometric|lowest|wall time|read |^(4096x4096x4096|8192x8192x8192|1000x12x100001) " \
  "$T" | cut -c1-150 | head -70
