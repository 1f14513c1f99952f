#!/usr/bin/env bash
# Device call R (one H200), session of 2026-11-28 (late): does the default strategy (cost-model
# pruning and halving's abandon rule, whose stream-K fix-up term predates call O's fix-up) find
# what exhaustive finds now that the stream-K tiles of calls O and Q win the mid sizes?
# bench-search over every GEMM family on the shapes they won and on three small mid sizes no
# change moved. The build of call Q (carry/build.tar.xz, edede7a; later commits changed comments
# and docs only). Everything goes into callR.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callR; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L; $O --version; } > "$W/env.txt" 2>&1
families=coarsened,regblocked,pipelined,splitk,skinny,streamk,tma,repacked
s=$(date +%s)
timeout 400 bash scripts/bench-search.sh -b $O -k "$families" -m 4 -r 0 -o $W/bs \
  1025x1025x1025 2049x2049x2049 1536x1536x4096 698x2077x4461 300x300x20000 1100x900x1300 \
  1438x438x278 832x259x1222 > "$W/bench-search.out" 2>&1
echo "bench-search rc=$? in $(( $(date +%s) - s )) s" >> $W/env.txt
{ cat $W/env.txt; grep -vE "^\s*$" $W/bench-search.out | cut -c1-220; } > "$T" 2>&1
tar -czf "$R/callR.tgz" -C /tmp callR
grep -E "rc=|within|target|^shape|winner" "$T" | cut -c1-200
