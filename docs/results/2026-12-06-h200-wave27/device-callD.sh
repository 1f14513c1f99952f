#!/usr/bin/env bash
# Device call D (one GPU): the build of carry/commit (DenseWindowVec: the A-window kernel with B
# dense reading B's rows as float4s where N is a multiple of 4). The lab (lab/rowdot_lab.cu at
# the same commit) once on N = 12 with K odd (" dwin" against " dvwin" for every ring);
# `ctest -L gpu`; compute-sanitizer over skinny: memcheck and synccheck at call B's shapes plus
# N = 12 with K odd and long enough for B dense, the planted-fault control. Cut to fit the
# session's last 268 s of device time (two more start attempts found no machine): one lab run,
# no racecheck, no bench.
set -u
. scripts/device-call-setup.sh callD
shapes_lab="1000x12x100001 10000x12x9999 2000x12x50001 12000x12x12001 16384x12x16383
  7000x12x20003"
for run in 1; do
  s=$SECONDS
  timeout 100 carry/rowdot_lab $shapes_lab > "$W/lab-$run.txt" 2>&1
  step "rowdot_lab run $run" $? $((SECONDS - s))
done
grep -h WRONG "$W"/lab-*.txt | sort | uniq -c >> "$T"
for f in "$W"/lab-*.txt; do
  awk -v b="$(basename "$f" .txt)" '/^[0-9]+x/{s=$1; print b, $0; n=0} /^  ring/{ if (n<4) {n++; print b, s, $0} }' "$f"
done | sed -E 's/ +/ /g' >> "$T"
s=$SECONDS
timeout 230 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $((SECONDS - s))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> "$T"
shapes="1x1x1 17x17x17 257x129x515 1x257x515 12x260x516 260x12x516 260x6x1540 257x4x2052
  100x16x1028 70x8x520 90x7x1030 65x10x1030 129x8x771 1000x15x4097 64x15x69 130x12x2051
  65x14x1031 130x13x4099 129x6x2051 200x5x8191 1000x12x4099 64x9x517 70x14x2048
  33x16x1031 100x16x1027 17x12x2053 40x9x1030 70x6x2049 33x8x1026 129x16x2050 1000x13x4101
  40x12x8193 70x12x16385 130x12x4098 65x4x8193 33x8x16387"
sanitize memcheck 200 $shapes
sanitize synccheck 200 $shapes
sanitize_control
tar -czf "$R/callD.tgz" -C /tmp callD
grep -E "rc=|tests|SUMMARY|candidates|control|Failed|geometric|WRONG|read |^(4096x4096x4096|8192x8192x8192|1000x12x100001|10000x12x9999) " \
  "$T" | cut -c1-150 | head -50
