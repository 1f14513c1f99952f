#!/usr/bin/env bash
# Device call A (one H200): the build of carry/commit (wave 14's final kernels). Nsight Compute
# (full set) on skinny's ring for N <= 16 at 8192x16x8192 and 8192x8x8192 and on the M-side
# ring SkinnyPipe<16,32,128,4> at 16x8192x8192 (which reads its large operand at 3.17 TB/s where
# the N-side ring reads 2.4): what limits each. Then every skinny candidate at the three shapes.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callA; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
prof() {  # $1 kernel regex (mangled), $2 shape, $3 name
  s=$(date +%s)
  timeout 90 ncu --clock-control none --kernel-name-base mangled -k "regex:$1" --launch-skip 3 \
    --launch-count 1 --set full $O tune --kernel skinny --shape $2 --strategy exhaustive --wide \
    --db /tmp/ncu-$3.db --quiet > $W/ncu-$3.txt 2>&1
  step "ncu $3" $? $(( $(date +%s) - s ))
}
prof 'SkinnyPipeSmallNILi16ELi16ELi256ELi3E' 8192x16x8192 smalln-n16
prof 'SkinnyPipeSmallNILi16ELi16ELi256ELi3E' 8192x8x8192 smalln-n8
prof 'SkinnyPipeILi16ELi32ELi128ELi4E' 16x8192x8192 pipe-m16
for shape in 8192x16x8192 8192x8x8192 8192x1x8192 16x8192x8192; do
  echo "== tune exhaustive $shape" >> $T
  timeout 40 $O tune --kernel skinny --shape $shape --strategy exhaustive --wide \
    --db /tmp/ex.db > $W/exhaustive-$shape.txt 2>&1
  grep -E "^skinny|^cublas" $W/exhaustive-$shape.txt | awk '{print $1, $2, $6, $10, $15}' \
    | sort -k4 -n | head -5 >> $T
done
for f in $W/ncu-*.txt; do
  echo "== $f" >> $T
  grep -E "Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|Memory Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Issue Slots Busy|Issued Ipc|No Eligible|Warp Cycles Per Issued|Eligible Warps|Bank Conflicts|Theoretical Occupancy|Block Limit" $f | head -40 >> $T
  grep -E "^    (OPT|WRN|INF)" -A3 $f | grep -iE "stall|cycles|bank|L2|barrier|long scoreboard" | head -14 >> $T
done
tar -czf "$R/callA.tgz" -C /tmp callA
cat $T
