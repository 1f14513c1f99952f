#!/usr/bin/env bash
# Device call L (one H200): Nsight Compute on lab/ring_read_lab.cu's probes at 8192x8192 (the
# first launch after the four dropped samples): the barrier ring with W = 0 and W = 256 FMAs a
# thread and slab, and the TMA producer with W = 256.
set -u
CLOCKS=${CLOCKS:-base}  # ncu locks the SM clock to its base (1.5 GHz) unless `none`
export PATH=/usr/local/cuda/bin:$PATH
{ date -u; echo "commit: $(cat carry/commit)"; nvidia-smi -L; which ncu; } > $OUT/lab.txt
# The probes run in list order, 24 launches each (lab/ring_read_lab.cu at carry/commit, whose
# producer kernels were later folded into ring_read_producer<..., Copy>): ring_read's 15th
# probe is W = 0 with the padding, its 18th W = 256; ring_read_tma's 2nd is W = 256. Skipped:
# the earlier probes' launches and 4 samples.
for spec in "ring_read 340 W=0" "ring_read 412 W=256" "ring_read_tma 28 tma-W=256"; do
  set -- $spec
  echo "=== $1, launch $2 ($3)" >> $OUT/lab.txt
  timeout 150 ncu --clock-control $CLOCKS --kernel-name "regex:^$1\$" --launch-skip $2 \
    --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section SchedulerStats \
    --section WarpStateStats --section Occupancy carry/ring_read_lab > $OUT/ncu.txt 2>&1
  echo "rc=$?" >> $OUT/lab.txt
  grep -vE "^ *(8192|16384)x|wrong sums|^==PROF==" $OUT/ncu.txt >> $OUT/lab.txt
done
grep -E "===|rc=|Duration|DRAM Throughput|Memory Throughput|L2 Hit|Issued Warp|No Eligible|Stall|Achieved Occ|Warp Cycles Per Issued|Compute \(SM\)|Mem Busy|Max Bandwidth" $OUT/lab.txt | head -80
