#!/usr/bin/env bash
# Device call A (one H200): the build of carry/commit (A's windows for the rings at 16 and 32
# rows of C: a thread's rows in 4 / H offset classes). The lab (lab/rowdot_lab.cu at the same
# commit) twice on shapes with N <= 16 whose K is not a multiple of 4, and aligned controls,
# every ring with its window kernels, checked against cuBLAS on a NaN-poisoned C; `ctest -L
# gpu`; compute-sanitizer over skinny: memcheck and synccheck at scripts/sanitize.sh's skinny
# shapes plus shapes that take the new window kernels (K odd or 2 mod 4, N 5-16, M over one and
# several 16- and 32-row tiles), racecheck at two, the planted-fault control; the yardstick
# (lab/hbm_read_lab.cu); `bench` on wave 25's set (K not a multiple of 4) twice and wave 26's.
set -u
. scripts/device-call-setup.sh callA
shapes_lab="1000x12x100001 1000x12x100000 500x16x200001 2000x10x50001 9000x14x9001
  5000x16x20001 10000x12x9999 3000x6x30001 12000x8x12001 7001x13x11003 9999x15x7777
  2000x16x50002"
for run in 1 2; do
  s=$SECONDS
  timeout 150 carry/rowdot_lab $shapes_lab > "$W/lab-$run.txt" 2>&1
  step "rowdot_lab run $run" $? $((SECONDS - s))
done
grep -h WRONG "$W"/lab-*.txt | sort | uniq -c >> "$T"
for f in "$W"/lab-*.txt; do
  awk -v b="$(basename "$f" .txt)" '/^[0-9]+x/{s=$1; print b, $0; n=0} /^  (ring|rowdot|ring-dot)/{ if (n<6) {n++; print b, s, $0} }' "$f"
done | sed -E 's/ +/ /g' >> "$T"
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
sanitize racecheck 130 33x12x1031 40x16x1030
sanitize_control
t0=$SECONDS; timeout 120 carry/hbm_read_lab > "$W/hbm_read_lab.txt" 2>&1
step hbm_read_lab $? $((SECONDS - t0))
grep -E "best|wrong" "$W/hbm_read_lab.txt" | grep -E "^read|wrong" >> "$T"
suite hbm-25-1 docs/results/2026-12-01-h200-wave25/hbm-wave25-suite.txt
suite hbm-26 docs/results/2026-12-01-h200-wave26/hbm-wave26-suite.txt
suite hbm-25-2 docs/results/2026-12-01-h200-wave25/hbm-wave25-suite.txt
tar -czf "$R/callA.tgz" -C /tmp callA
grep -E "rc=|tests|SUMMARY|candidates|control|Failed|geometric|WRONG|read " "$T" | cut -c1-150 | head -40
