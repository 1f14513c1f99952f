#!/usr/bin/env bash
# Device call B (wave 20, one H200): call A's two winners combined (the 16- and 8-step unrolled
# slab loop with the columns-outside FMA order), the unrolled loop on the 240/24 split and in the
# BK 32 stream-K hybrid (kernels/tma.cu at carry/commit plus tma-variants-B.diff): every tma
# candidate exhaustive at 4096^3 (twice), 8192^3, 6144^3, 1536x1536x4096 and 3000x1000x4096;
# the family's GPU tests; `occtune bench` (interleaved with cuBLAS) at 4096^3 and 8192^3 on the
# tma family alone; Nsight Compute's source page on the unrolled columns-outside kernel.
set -u
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callB; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
for x in 4096x4096x4096 8192x8192x8192 4096x4096x4096 6144x6144x6144 1536x1536x4096 3000x1000x4096; do
  s=$(date +%s)
  timeout 120 $O tune --kernel tma --shape $x --strategy exhaustive --wide --samples 40 \
    --db /tmp/ex-$x.db --force > $W/ex-$x-$s.txt 2>&1
  step "tune $x" $? $(( $(date +%s) - s ))
  grep -E "^(tma|cublas) " $W/ex-$x-$s.txt | cut -c1-230 >> $T
done
s=$(date +%s)
timeout 200 build-h100/tests/test_tma_family > $W/test_tma_family.txt 2>&1
step "test_tma_family" $? $(( $(date +%s) - s )); tail -3 $W/test_tma_family.txt >> $T
s=$(date +%s)
timeout 120 $O bench --kernel tma --shape 4096x4096x4096 --shape 8192x8192x8192 \
  > $W/bench-tma.txt 2>&1
step "bench tma" $? $(( $(date +%s) - s )); cut -c1-200 $W/bench-tma.txt >> $T
G='TmaUnrollINS0_17TmaColumnsOutsideINS0_7TmaGemmILi128ELi256ELi32ELi16ELi8ELi64ELi64ELi4ELi2ELi232ELi40EEEEELi16E'
s=$(date +%s)
timeout 90 ncu --clock-control none --target-processes all --kernel-name-base mangled \
  -k "regex:tma_entryINS0_9$G" --launch-skip 3 --launch-count 1 --set full --import-source no \
  -o $W/bk32colu16 $O tune --kernel tma --shape 4096x4096x4096 --strategy exhaustive \
  --db /tmp/ncu.db --quiet > $W/ncu-run.txt 2>&1
step "ncu bk32colu16" $? $(( $(date +%s) - s ))
ncu -i $W/bk32colu16.ncu-rep --print-details all > $W/ncu-bk32colu16.txt 2>&1
ncu -i $W/bk32colu16.ncu-rep --page source --csv --print-source sass > $W/source-bk32colu16.csv 2>&1
grep -E "Duration|Issue Slots Busy|Stall (Long|Short|Wait|Dispatch|No Inst|Not Sel)" \
  $W/ncu-bk32colu16.txt | head -12 >> $T
tar -cJf "$R/callB.tar.xz" -C /tmp callB
grep -E "rc=|^cublas|Duration|Issue Slots|Stall|PASSED|FAILED|geometric|x[0-9]+x" "$T" | cut -c1-150 | head -60
