#!/usr/bin/env bash
# Device call I (one H200): the build of carry/commit (calls G and H's kernels). Nsight Compute
# (full set) on what bounds the two 256 MiB skinny shapes furthest from 85% of HBM: the row
# groups' winner at 8192x16x8192 (SkinnyPipeSmallNRowGroups<64,8,128,3>, 83.3 us) and the M = 16
# ring at 16x8192x8192 (SkinnyPipe<16,64,64,4>, 79% in wave 15).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callI; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
prof() {  # $1 kernel regex (mangled), $2 shape, $3 name
  s=$(date +%s)
  timeout 60 ncu --clock-control none --kernel-name-base mangled -k "regex:$1" --launch-skip 3 \
    --launch-count 1 --set full --print-details all $O tune --kernel skinny --shape $2 --strategy exhaustive --wide \
    --db /tmp/ncu-$3.db --quiet > $W/ncu-$3.txt 2>&1
  step "ncu $3" $? $(( $(date +%s) - s ))
}
prof 'SkinnyPipeSmallNRowGroupsILi64ELi8ELi128ELi3E' 8192x16x8192 groups-n16
prof 'SkinnyPipeILi16ELi64ELi64ELi4E' 16x8192x8192 ring-m16
for f in $W/ncu-*.txt; do
  echo "== $f" >> $T
  grep -E "Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|Memory Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Issue Slots Busy|Dynamic Shared|Waves Per SM|Issued Ipc|No Eligible|Warp Cycles Per Issued|Eligible Warps|Theoretical Occupancy|Block Limit|Executed Instructions  " $f | head -40 >> $T
  grep -E "^    (OPT|WRN|INF)" -A3 $f | grep -iE "stall|cycles|L1|L2|scoreboard|occupancy" | head -14 >> $T
  grep -iE "^ *(Stall|Warp Cycles|smsp__average_warp)" $f | head -30 >> $T
done
tar -czf "$R/callI.tgz" -C /tmp callI
cat $T
