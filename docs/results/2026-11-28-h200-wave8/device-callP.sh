#!/usr/bin/env bash
# Device call P (one H200), session of 2026-11-28 (late): a lab on why 1025^3 stays at 0.77x
# cuBLAS with the 64x64 tiles that reach 1.03x at 1024^3. The build of call O
# (carry/build.tar.xz, carry/commit). Every split-K, stream-K, repacked and pipelined candidate
# measured (tune --strategy exhaustive) at 1024^3, 1025^3, 1028^3 (aligned, the same 17x17
# tiles as 1025^3), 1028x1028x1025 (only A's rows misaligned) and 1025x1025x1028 (only B's);
# the bench at those shapes (cuBLAS in the same run); Nsight Compute on the 64x64 split-K and
# stream-K kernels at 1025^3 and 1028^3. Everything goes into callP.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callP; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L; $O --version; } > "$W/env.txt" 2>&1
SHAPES="1024x1024x1024 1025x1025x1025 1028x1028x1028 1028x1028x1025 1025x1025x1028"
s=$(date +%s)
BENCH_TIMEOUT=60 timeout 80 $O bench $(for x in $SHAPES; do echo --shape $x; done) --quiet > $W/bench.txt 2>&1
step bench $? $(( $(date +%s) - s ))
for x in $SHAPES; do
  s=$(date +%s)
  timeout 60 $O tune --shape $x --kernel splitk --kernel streamk --kernel repacked --kernel pipelined \
    --strategy exhaustive --db /tmp/lab.db --quiet --output $W/exh-$x.txt > $W/exh-$x.log 2>&1
  step "exhaustive $x" $? $(( $(date +%s) - s ))
done
for x in 1025x1025x1025 1028x1028x1028; do
  for fk in 'splitk SplitKILi64ELi64ELi8ELi8ELi4ELi32ELi32ELi3ELi1ELi2ELi0E' 'streamk StreamKILi64ELi64ELi8ELi8ELi4ELi32ELi32ELi3ELi1ELi0ELi8ELi1E'; do
    f=${fk% *}; k=${fk#* }
    s=$(date +%s)
    timeout 90 ncu --clock-control none --target-processes all --kernel-name-base mangled -k "regex:gemm_entry.*$k" --launch-skip 2 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats \
      $O tune --shape $x --kernel $f --strategy exhaustive --db /tmp/ncu.db --quiet --no-isolation > $W/ncu-$x-${k:0:7}.txt 2>&1
    step "ncu $x ${k:0:7}" $? $(( $(date +%s) - s ))
  done
done
{ cat $W/env.txt $W/steps.txt; cut -c1-200 $W/bench.txt; for x in $SHAPES; do echo "== $x"; grep -E "best|cublas|bm=64,bn=64|^ *(splitk|streamk|repacked|pipelined) *(bm|Split|Stream)" $W/exh-$x.txt | sort -t"|" -k1,1 | cut -c1-230 | head -30; done
  for f in $W/ncu-*.txt; do echo "== $f"; grep -E "Duration|Memory Throughput|L2 Cache Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Registers Per|Block Limit|Issued Warp|No Eligible|Warp Cycles Per Issued|Stall|DRAM Throughput|Compute \(SM\)|One or More|Active Warps" $f | head -40; done; } > "$T" 2>&1
tar -czf "$R/callP.tgz" -C /tmp callP
head -c 9000 "$T"
