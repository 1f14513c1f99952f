#!/usr/bin/env bash
# Device call F (one H200): the HBM yardstick and the N <= 16 HBM shapes in one session. The
# build of call B (801b3bd; the kernels of carry/commit are the same), lab/hbm_read_lab.cu (the
# 1 GiB read the 85% target is stated against), lab/ring_read_lab.cu (the rings' read of A
# without FMAs), then `bench` on wave 17's HBM set and wave 16's N <= 4 set, twice.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callF; mkdir -p $W; T=$R/results.txt
D17=docs/results/2026-11-29-h200-wave17; D16=docs/results/2026-11-29-h200-wave16
O=$PWD/build-h100/autotuner/occtune
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "commit: $(cat carry/commit)"; nvidia-smi -L; } > $T 2>&1
timeout 60 carry/hbm_read_lab >> $T 2>&1; echo "hbm_read_lab rc=$?" >> $T
timeout 60 carry/ring_read_lab >> $T 2>&1; echo "ring_read_lab rc=$?" >> $T
for run in 1 2; do
  for set in $D17/hbm-suite $D16/n4-suite; do
    n=$(basename $set)
    BENCH_TIMEOUT=40 timeout 50 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$n-$run \
      > "$W/$n-$run.out" 2>&1
    echo "== $n run $run rc=$?" >> $T; cut -c1-150 $W/$n-$run/*/summary.txt >> $T
  done
done
tar -czf "$R/callF.tgz" -C /tmp callF
grep -E "best|rc=|==|geometric|x8192 |x16384 " $T | cut -c1-120
