#!/usr/bin/env bash
# Device call C (wave 20, one H200): kernels/tma.cu at carry/commit plus tma-variants-C.diff. The
# stream-K walk works out a tile's origin once per tile instead of once per slab (call A's
# Nsight Compute put the BK 16 hybrid's consumers waiting on the transposed A: the issuing
# producer warp, which also transposes, ran two divisions a slab); the unrolled BK 32 tile as
# stream-K (hybrid and all tiles, 16 and 8 steps); the 224/56 split unrolled and with columns
# outside; 4 steps unrolled. Every tma candidate exhaustive at eight shapes, the family's GPU
# tests, `occtune bench` on the tma family at four shapes, Nsight Compute's source page on the
# BK 32 stream-K hybrid at 4096^3.
set -u
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callC; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
for x in 4096x4096x4096 8192x8192x8192 4096x4096x4096 6144x6144x6144 1536x1536x4096 \
         3000x1000x4096 2048x2048x2048 4096x1024x2048 5000x5000x5000; do
  s=$(date +%s)
  timeout 120 $O tune --kernel tma --shape $x --strategy exhaustive --wide --samples 40 \
    --db /tmp/ex-$x.db --force > $W/ex-$x-$s.txt 2>&1
  step "tune $x" $? $(( $(date +%s) - s ))
done
s=$(date +%s)
timeout 200 build-h100/tests/test_tma_family > $W/test_tma_family.txt 2>&1
step "test_tma_family" $? $(( $(date +%s) - s )); tail -3 $W/test_tma_family.txt >> $T
s=$(date +%s)
timeout 150 $O bench --kernel tma --shape 4096x4096x4096 --shape 8192x8192x8192 \
  --shape 2048x2048x2048 --shape 1536x1536x4096 > $W/bench-tma.txt 2>&1
step "bench tma" $? $(( $(date +%s) - s )); cut -c1-200 $W/bench-tma.txt >> $T
G='TmaStreamKINS0_9TmaUnrollINS0_7TmaGemmILi128ELi256ELi32ELi16ELi8ELi64ELi64ELi4ELi2ELi232ELi40EEELi16EEELi1E'
s=$(date +%s)
timeout 90 ncu --clock-control none --target-processes all --kernel-name-base mangled \
  -k "regex:tma_streamk_entryINS0_10$G" --launch-skip 3 --launch-count 1 --set full \
  --import-source no -o $W/sk32u16 $O tune --kernel tma --shape 4096x4096x4096 \
  --strategy exhaustive --db /tmp/ncu.db --quiet > $W/ncu-run.txt 2>&1
step "ncu sk32u16" $? $(( $(date +%s) - s ))
ncu -i $W/sk32u16.ncu-rep --print-details all > $W/ncu-sk32u16.txt 2>&1
ncu -i $W/sk32u16.ncu-rep --page source --csv --print-source sass > $W/source-sk32u16.csv 2>&1
grep -E "Duration|Issue Slots Busy|Stall (Long|Short|Wait|Dispatch|No Inst|Not Sel)" \
  $W/ncu-sk32u16.txt | head -12 >> $T
tar -cJf "$R/callC.tar.xz" -C /tmp callC
grep -E "rc=|Duration|Issue Slots|Stall|PASSED|FAILED|geometric|x[0-9]+x|target" "$T" | cut -c1-150 | head -60
