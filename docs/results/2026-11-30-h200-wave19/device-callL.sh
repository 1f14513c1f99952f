#!/usr/bin/env bash
# Device call L (one H200): Nsight Compute on lab/ring_read_lab.cu's probes at 8192x8192 (the
# first launch after the four dropped samples): the barrier ring with W = 0 and W = 256 FMAs a
# thread and slab, and the TMA producer with W = 256.
set -u
export PATH=/usr/local/cuda/bin:$PATH
{ date -u; echo "commit: $(cat carry/commit)"; nvidia-smi -L; which ncu; } > $OUT/lab.txt
for k in "void ring_read<(int)64, (int)64, (int)4, (int)2, (bool)0, (int)0, (int)100>" \
         "void ring_read<(int)64, (int)64, (int)4, (int)2, (bool)0, (int)256, (int)100>" \
         "void ring_read_tma<(int)64, (int)64, (int)4, (int)2, (int)256>"; do
  echo "=== $k" >> $OUT/lab.txt
  timeout 150 ncu --kernel-name-base demangled --kernel-name "regex:^${k//[<>()]/.}" \
    --launch-skip 4 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section SchedulerStats --section WarpStateStats --section Occupancy \
    carry/ring_read_lab > $OUT/ncu.txt 2>&1
  echo "rc=$?" >> $OUT/lab.txt
  grep -vE "^ *(8192|16384)x|wrong sums" $OUT/ncu.txt | grep -vE "^==PROF==" >> $OUT/lab.txt
done
grep -E "===|rc=|Duration|DRAM Throughput|Memory Throughput|L2 Hit|Issued Warp|No Eligible|Stall|Achieved Occ|Warp Cycles Per Issued|Compute \(SM\)|Mem Busy|Max Bandwidth" $OUT/lab.txt | head -80
