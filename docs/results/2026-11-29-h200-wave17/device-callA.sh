#!/usr/bin/env bash
# Device call A (one H200): lab/rowdot_lab.cu built here at carry/commit plus this wave's lab
# list (the row-dot kernel at N = 8 and 16 with 1-4 lanes a row and register bounds; the rings
# through occtune's own entry) on the N = 5-16 shapes with a large A and odd shapes for
# correctness. Call B ran the same script with "ncu" as its argument: no lab timing, Nsight
# Compute (full set) on the 16-column ring at 8192x16x8192 and the 8-column one at
# 8192x8x8192: what bounds them.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callA; mkdir -p $W; T=$R/results.txt
{ date -u; echo "build: $(cat carry/commit) + lab list"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
if [ "${1:-}" != ncu ]; then
s=$(date +%s)
timeout 200 carry/rowdot_lab --reps 15 8192x8x8192 16384x8x16384 4096x8x4096 12940x8x1160 \
  8192x16x8192 16384x16x16384 4096x16x4096 2048x16x2048 8192x5x8192 8192x12x8192 \
  8192x4x8192 17x5x1001 1x1x1 4097x16x999 333x7x129 1001x11x2053 >> $T 2>&1
echo "lab rc=$? in $(( $(date +%s) - s )) s" >> $T
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader >> $T
cat $T; exit 0
fi
prof() {  # $1 kernel regex (mangled name), $2 shape, $3 name: its first (checked) launch
  s=$(date +%s)
  timeout 60 ncu --clock-control none --kernel-name-base mangled -k "regex:$1" \
    --launch-count 1 --set full carry/rowdot_lab --reps 1 $2 > $W/ncu-$3.txt 2>&1
  echo "ncu $3 rc=$? in $(( $(date +%s) - s )) s" >> $T
}
prof 'SkinnyPipeSmallNILi16ELi16ELi256ELi3E' 8192x16x8192 ring-c16
prof 'SkinnyPipeSmallNILi16ELi8ELi512ELi2E' 8192x8x8192 ring-c8
for f in $W/ncu-*.txt; do
  echo "== $f" >> $T
  grep -E "gemm_entry|entry<|Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|Memory Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Issue Slots Busy|Issued Ipc|No Eligible|Warp Cycles Per Issued|Eligible Warps|Theoretical Occupancy|Block Limit|Executed Instructions  |Shared Memory Configuration|Dynamic Shared" $f | head -44 >> $T
  grep -E "^    (OPT|WRN|INF)" -A3 $f | grep -iE "stall|cycles|L1|L2|scoreboard|occupancy|bank" | head -16 >> $T
done
tar -czf "$R/callB.tgz" -C /tmp callA
cat $T
