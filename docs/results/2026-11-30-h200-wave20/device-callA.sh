#!/usr/bin/env bash
# Device call A (wave 20, one H200): the tma family's exploratory variants (kernels/tma.cu at
# carry/commit plus tma-variants.diff): every tma candidate at 4096^3 (twice), 8192^3 and two
# stream-K shapes, exhaustive; the family's GPU tests; Nsight Compute (full set, then the source
# page as SASS with the stall samples per instruction) on the 4096^3 winner of the last waves,
# its 8-step unrolled twin, the 3-slot A variant and the BK 16 stream-K hybrid; the SASS of
# every tma kernel (cuobjdump of carry/tma.cu.o).
set -u
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callA; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L; which ncu cuobjdump
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
s=$(date +%s)
cuobjdump -sass carry/tma.cu.o > $W/tma-sass.txt 2>&1
step "cuobjdump" $? $(( $(date +%s) - s ))
grep -E "Function :|^\s+/\*[0-9a-f]{4}\*/" $W/tma-sass.txt | awk '/Function :/{if(n)print n, f; f=$3; n=0; next}{n++}END{print n, f}' >> $T
for x in 4096x4096x4096 8192x8192x8192 4096x4096x4096 1536x1536x4096 3000x1000x4096; do
  s=$(date +%s)
  timeout 120 $O tune --kernel tma --shape $x --strategy exhaustive --wide --samples 40 \
    --db /tmp/ex-$x.db --force > $W/ex-$x-$s.txt 2>&1
  step "tune $x" $? $(( $(date +%s) - s ))
  grep -E "^(tma|cublas) " $W/ex-$x-$s.txt | cut -c1-230 >> $T
done
s=$(date +%s)
timeout 200 build-h100/tests/test_tma_family > $W/test_tma_family.txt 2>&1
step "test_tma_family" $? $(( $(date +%s) - s )); tail -3 $W/test_tma_family.txt >> $T
prof() {  # $1 name, $2 mangled-name regex, $3 shape
  s=$(date +%s)
  timeout 90 ncu --clock-control none --target-processes all --kernel-name-base mangled -k "regex:$2" --launch-skip 3 \
    --launch-count 1 --set full --import-source no -o $W/$1 $O tune --kernel tma --shape $3 \
    --strategy exhaustive --db /tmp/ncu-$1.db --quiet > $W/ncu-run-$1.txt 2>&1
  step "ncu $1" $? $(( $(date +%s) - s ))
  ncu -i $W/$1.ncu-rep --print-details all > $W/ncu-$1.txt 2>&1
  ncu -i $W/$1.ncu-rep --page source --csv --print-source sass > $W/source-$1.csv 2>&1
  step "source $1" $? 0
}
G32='TmaGemmILi128ELi256ELi32ELi16ELi8ELi64ELi64ELi4ELi2ELi232ELi40E'
G16='TmaGemmILi128ELi256ELi16ELi16ELi8ELi64ELi64ELi6ELi2ELi240ELi24E'
prof bk32 "tma_entryINS0_7$G32" 4096x4096x4096
prof bk32u8 "tma_entryINS0_9TmaUnrollINS0_7${G32}EELi8E" 4096x4096x4096
prof bk16s8a3 'tma_entryINS0_9TmaASlotsINS0_7TmaGemmILi128ELi256ELi16ELi16ELi8ELi64ELi64ELi8ELi2ELi240ELi24EEELi3E' 4096x4096x4096
prof bk16sk1 "tma_streamk_entryINS0_10TmaStreamKINS0_7${G16}EELi1E" 4096x4096x4096
for f in $W/ncu-*.txt; do
  case $f in *ncu-run-*) continue ;; esac
  echo "== $f" >> $T
  grep -E "^  [a-z_ ]*void|Duration|Executed Instructions  |Issue Slots Busy|Issued Warp Per|No Eligible|Warp Cycles Per Issued|Registers Per|Stall (Long|Short|Wait|Dispatch|No Inst|Barrier|Branch|Math|Not Sel)" $f | head -24 >> $T
done
tar -cJf "$R/callA.tar.xz" -C /tmp callA
grep -E "rc=|Function|^tma|^cublas|==|Duration|Issue Slots|Stall|PASSED|FAILED" "$T" | cut -c1-150 | head -150
