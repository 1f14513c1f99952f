#!/usr/bin/env bash
# Device call N (one H200): the session's final build (carry/commit): every GPU test; then
# lab/ring_read_lab.cu as refactored at that commit (the producer kernels folded into one).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callN; mkdir -p $W; T=$R/results.txt
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L; } > $T 2>&1
s=$(date +%s)
timeout 200 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
timeout 40 carry/ring_read_lab > $W/lab.txt 2>&1; step ring_read_lab $? 0
grep -E "producer|wrong" $W/lab.txt >> $T
tar -czf "$R/callN.tgz" -C /tmp callN
cat $T
