#!/usr/bin/env bash
# Device call A (one GPU): the build of carry/commit (DenseWindowVec, wave 27's
# densewindowvec.diff: the A-window kernel with B dense reading B's rows as float4s where N is a
# multiple of 4; and the A-window kernels copying B's dense slabs past slab 0 untested). The lab
# (lab/rowdot_lab.cu) built at 6c1372f ("prev": DenseWindowVec only) and at carry/commit ("new"),
# alternated twice, on N = 6-15 with K odd (" dwin" against " dvwin" for every ring at N = 12
# and 8); `ctest -L gpu`; compute-sanitizer over skinny: memcheck and synccheck at wave 27's
# shapes plus N = 12 and 8 with K odd and long enough for B dense, the planted-fault control;
# the yardstick; `bench` on wave 25's set (K not a multiple of 4) twice and on wave 24's; every
# tma configuration at 4096³ (`tune --strategy exhaustive --wide`, 40 samples, cuBLAS in the
# same run); the whole suite once; the SASS of three rings' kernels; Nsight Compute on the
# 32-row ring over 7 (instructions before and after the untested copies).
set -u
. scripts/device-call-setup.sh callA
shapes_lab="1000x12x100001 10000x12x9999 2000x12x50001 12000x12x12001 16384x12x16383
  7000x12x20003 20001x12x5001 8191x8x8193 9000x14x9001 9999x15x7777 7001x13x11003 3000x6x30001
  1000x12x100000 9000x14x9000 16x9999x7777 16x10000x10000"
tar -xJf carry/labs.tar.xz -C /tmp
for run in 1 2; do
  for lab in prev new; do
    s=$SECONDS
    timeout 100 /tmp/labs/rowdot_lab_$lab $shapes_lab > "$W/lab-$lab-$run.txt" 2>&1
    step "rowdot_lab $lab run $run" $? $((SECONDS - s))
  done
done
grep -h WRONG "$W"/lab-*.txt | sort | uniq -c >> "$T"
for f in "$W"/lab-*.txt; do
  awk -v b="$(basename "$f" .txt)" '/^[0-9]+x/{s=$1; print b, $0; n=0} /^  (ring|mring|mwin)/{ if (n<5) {n++; print b, s, $0} }' "$f"
done | sed -E 's/ +/ /g' >> "$T"
# Every window kernel's line (the top five above may hold none of them).
grep -E "^[0-9]+x|(dwin|dvwin) " "$W"/lab-*.txt | sed -E 's/ +/ /g' >> "$T"
# Nsight Compute (as wave 27's call C): one launch of the 32-row ring over 7's DenseWindowVec
# kernel at 1000x12x100001 from each lab, and its dense-B kernel at 1000x12x100000.
profile() {  # NAME LAB REGEX SHAPE
  local t0=$SECONDS
  timeout 120 ncu --clock-control none --kernel-name-base mangled -k "regex:$3" \
    --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
    --section Occupancy --section LaunchStats --section InstructionStats \
    --section MemoryWorkloadAnalysis -o "$W/$1" /tmp/labs/rowdot_lab_$2 --reps 1 "$4" \
    > "$W/$1.out" 2>&1
  step "ncu $1 $4" $? $((SECONDS - t0))
  ncu -i "$W/$1.ncu-rep" --page details --csv > "$R/$1.csv" 2>&1
  grep -E '"(Executed Instructions|Duration|Issued Warp Per Scheduler|SM Active Cycles|DRAM Throughput|Memory Throughput)"' \
    "$R/$1.csv" | awk -F'","' -v n="$1" '{print "ncu", n, $13, $15}' >> "$T"
}
p32=SkinnyPipeInILNS_6LayoutE0ELi32ELi16ELi128ELi4ELb0ELi7ELb1ELi2E
profile s32-dvwin-prev prev "${p32}Li2ELb1EE" 1000x12x100001
profile s32-dvwin-new new "${p32}Li2ELb1EE" 1000x12x100001
profile s32-dense new "${p32}Li1ELb0EE" 1000x12x100000
# And the M-side ring for M <= 16 over 4 (16 rows of C, 64 columns, 64-row slabs) with B's
# rows through windows at 16x9999x7777 (N odd: 68% of the 1 GiB read in wave 27's call B)
# against its aligned ring at 16x10000x10000.
pm=SkinnyPipeInILNS_6LayoutE0ELi16ELi64ELi64ELi4ELb
profile m16-window new "${pm}1ELi4ELb0ELi1ELi0ELb0EE" 16x9999x7777
profile m16-aligned new "${pm}0ELi4ELb0ELi1ELi0ELb0EE" 16x10000x10000
s=$SECONDS
timeout 230 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $((SECONDS - s))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> "$T"
shapes="1x1x1 17x17x17 257x129x515 1x257x515 12x260x516 260x12x516 260x6x1540 257x4x2052
  100x16x1028 70x8x520 90x7x1030 65x10x1030 129x8x771 1000x15x4097 64x15x69 130x12x2051
  65x14x1031 130x13x4099 129x6x2051 200x5x8191 1000x12x4099 64x9x517 70x14x2048
  33x16x1031 100x16x1027 17x12x2053 40x9x1030 70x6x2049 33x8x1026 129x16x2050 1000x13x4101
  40x12x8193 70x12x16385 130x12x4098 65x4x8193 33x8x16387 17x12x9 1000x12x4098 40x8x8191
  65x14x8195 129x10x9001"
sanitize memcheck 200 $shapes
sanitize synccheck 200 $shapes
sanitize_control
# Archived here too, in case the call's limit cuts the rest.
tar -czf "$R/callA.tgz" -C /tmp callA
t0=$SECONDS; timeout 120 carry/hbm_read_lab > "$W/hbm_read_lab.txt" 2>&1
step hbm_read_lab $? $((SECONDS - t0))
grep -E "best|wrong" "$W/hbm_read_lab.txt" | grep -E "^read|wrong" >> "$T"
suite hbm-25-1 docs/results/2026-12-01-h200-wave25/hbm-wave25-suite.txt
suite hbm-24 docs/results/2026-11-30-h200-wave24/hbm-wave24-suite.txt
suite hbm-25-2 docs/results/2026-12-01-h200-wave25/hbm-wave25-suite.txt
s=$SECONDS
timeout 120 "$O" tune --kernel tma --shape 4096x4096x4096 --strategy exhaustive --wide \
  --samples 40 --db "$W/tma.db" --force > "$W/tma-4096.txt" 2>&1
step "tune tma 4096" $? $((SECONDS - s))
echo "== tune tma 4096" >> "$T"; grep -E "Tma|cuBLAS|cublas" "$W/tma-4096.txt" | cut -c1-160 \
  | sed 's/^/tma /' >> "$T"
suite suite-1
# The SASS of three rings' dense-B and window kernels (carry/sass.cubin, compiled here from
# kernels/skinny_pipe.cuh at the build's commit; this machine has no cuobjdump).
{ command -v cuobjdump && cuobjdump -sass carry/sass.cubin > "$R/sass.txt"; } >> "$T" 2>&1
tar -czf "$R/callA.tgz" -C /tmp callA
grep -E "rc=|tests|SUMMARY|candidates|control|Failed|geometric|lowest|WRONG|read |^tma|^(4096x4096x4096|8192x8192x8192|1000x12x100001|10000x12x9999) " \
  "$T" | cut -c1-150 | head -80
