#!/usr/bin/env bash
# Device call F (one H200): the build of carry/commit (call E's). Nsight Compute (full set) on
# the row-dot kernel at N = 1 (SkinnyRowDot<4,16,1,8,2>, 8192x1x8192, 71.2 us) and N = 4
# (SkinnyRowDot<4,16,4,2,2>, 8192x4x8192, 74.3 us): what the 4% between them is.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callF; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
prof() {  # $1 kernel regex (mangled), $2 shape, $3 name
  s=$(date +%s)
  timeout 60 ncu --clock-control none --kernel-name-base mangled -k "regex:$1" --launch-skip 3 \
    --launch-count 1 --set full $O tune --kernel skinny --shape $2 --strategy exhaustive --wide \
    --db /tmp/ncu-$3.db --quiet > $W/ncu-$3.txt 2>&1
  step "ncu $3" $? $(( $(date +%s) - s ))
}
prof 'SkinnyRowDotILi4ELi16ELi1ELi8ELi2E' 8192x1x8192 rowdot-n1
prof 'SkinnyRowDotILi4ELi16ELi4ELi2ELi2E' 8192x4x8192 rowdot-n4
for f in $W/ncu-*.txt; do
  echo "== $f" >> $T
  grep -E "Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|Memory Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Issue Slots Busy|Issued Ipc|No Eligible|Warp Cycles Per Issued|Eligible Warps|Theoretical Occupancy|Block Limit|Executed Instructions  " $f | head -40 >> $T
  grep -E "^    (OPT|WRN|INF)" -A3 $f | grep -iE "stall|cycles|L1|L2|scoreboard|occupancy" | head -14 >> $T
done
tar -czf "$R/callF.tgz" -C /tmp callF
cat $T
