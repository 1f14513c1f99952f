#!/usr/bin/env bash
# Device call I (one H200), session of the evening: the yardsticks and candidates for what is
# left of issue #18. (1) The H200's HBM read bandwidth (lab/hbm_read_lab.cu), which the 85%
# target for M or N <= 16 is judged against. (2) The wave-8 lab (lab/midsize_lab.cu) with new
# instantiations for 1025^3 (data-parallel 64x64, 64x32, 32x64 tiles) and the 256x128 split-K
# tile, on the weak shapes and on shapes the suite does not hold. (3) bench-search's default
# against exhaustive on the weak shapes (the build at carry/commit): does pruning lose there?
set -u
rm -rf build-h100 && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callI; mkdir -p $W
O=$PWD/build-h100/autotuner/occtune
{ date -u; echo "commit $(cat carry/commit) (lab binaries built from the working tree)"; $O --version;
  nvidia-smi -L; nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader; } > "$R/env.txt" 2>&1
step() { echo "$1 rc=$2 in $3 s" >> "$R/steps.txt"; }
s=$(date +%s)
timeout 60 carry/hbm_read_lab > "$R/hbm-read.txt" 2>&1
step hbm-read $? $(( $(date +%s) - s ))
s=$(date +%s)
timeout 200 carry/midsize_lab 1025x1025x1025 2049x2049x2049 698x2077x4461 1536x1536x4096 \
  256x256x16384 3001x1000x4097 1024x1024x1024 1100x900x1300 777x1500x2000 513x513x2049 \
  > "$R/lab.txt" 2>&1
step lab $? $(( $(date +%s) - s ))
families=coarsened,regblocked,pipelined,splitk,skinny,streamk,tma,repacked
s=$(date +%s)
timeout 200 bash scripts/bench-search.sh -b $O -k "$families" -m 4 -r 0 -o $W/bs \
  1025x1025x1025 256x256x16384 1536x1536x4096 698x2077x4461 > "$R/bench-search.out" 2>&1
step bench-search $? $(( $(date +%s) - s ))
tar -czf "$R/callI.tgz" -C /tmp callI
cat "$R/env.txt" "$R/steps.txt"
grep -E "best|wrong" "$R/hbm-read.txt"
grep -E "within|target|NO|yes|winner" "$R/bench-search.out" | tail -16
