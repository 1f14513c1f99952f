#!/usr/bin/env bash
# Device call E (one H200): test_kernel_layouts with the shape 1000x8x1540 added to skinny's
# shapes (the ring for N <= 8 over aligned rows, whole and partial slabs), built here at the
# commit after 280eb5e (carry/layouts.tar.xz: that test binary only). Kernels' SASS: calls C
# and D's (kernel build id a4905cc285619af9).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; T=$R/results.txt
mkdir -p build-h100 && tar -xJf carry/layouts.tar.xz
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
s=$(date +%s)
timeout 300 ./build-h100/tests/test_kernel_layouts > $R/test_kernel_layouts.log 2>&1
echo "test_kernel_layouts rc=$? in $(( $(date +%s) - s )) s" >> $T
grep -E "^\[  (PASSED|FAILED)|^\[       OK|tests ran" $R/test_kernel_layouts.log >> $T
cat $T
