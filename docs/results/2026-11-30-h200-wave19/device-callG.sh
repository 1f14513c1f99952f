#!/usr/bin/env bash
# Device call G (one H200, the machine of calls E and F where the lease allows): the suite twice
# on call B's build (801b3bd; carry/commit's kernels are the same), for the large squares on a
# second machine of this session (call B's put 4096^3 at 0.968 and 8192^3 at 1.009).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callG; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "commit: $(cat carry/commit)"; nvidia-smi -L; } > $T 2>&1
for run in 1 2; do
  BENCH_TIMEOUT=80 timeout 90 bash scripts/bench-suite.sh -b $O -o $W/suite$run > "$W/suite$run.out" 2>&1
  echo "== suite $run rc=$?" >> $T; cut -c1-150 $W/suite$run/*/summary.txt >> $T
done
tar -czf "$R/callG.tgz" -C /tmp callG
grep -E "UUID|==|geometric|^(4096x4096x4096|8192x8192x8192|1025x1025|256x256x16384|1536x1536x4096|3001x) " $T | cut -c1-120
