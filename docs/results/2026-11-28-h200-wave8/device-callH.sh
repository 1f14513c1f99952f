#!/usr/bin/env bash
# Device call H (nvidia-h200-x4), wave 8, issue #17: call G again with --spread shapes split by
# expected tuning time (longest first, to the least-loaded GPU) instead of in turns: the multi-shape
# tune on 1, 2 and 4 GPUs (scripts/multi-gpu-scaling.sh, the same 16 shapes as calls E and G) and
# --spread none on 4, then e2e.gpu_multi_device with four GPUs.
set -u
rm -rf build-h100 && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callH; mkdir -p $W
O=$PWD/build-h100/autotuner/occtune
{ date -u; echo "commit $(cat carry/commit)"; $O --version; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader
  nvidia-smi topo -m; } > "$R/env.txt" 2>&1
step() { echo "$1 rc=$2 in $3 s" >> "$R/steps.txt"; }
s=$(date +%s)
timeout 200 bash scripts/multi-gpu-scaling.sh -b $O -o $W/scaling -c "1 2 4" -N \
  1024x1024x1024 2048x2048x2048 4096x1024x2048 1000x1000x1000 3001x1000x4097 2048x512x4096 \
  512x2048x2048 1536x1536x1536 4096x4096x4096 2049x2049x2049 698x2077x4461 1025x1025x1025 \
  256x256x16384 4096x64x4096 64x4096x4096 717x4789x3329 > $R/scaling.out 2>&1
step multi-gpu-scaling $? $(( $(date +%s) - s ))
cp $W/scaling/summary.txt $R/scaling-summary.txt 2>/dev/null
s=$(date +%s)
timeout 120 ctest --test-dir build-h100 -R 'e2e.gpu_multi_device' --output-on-failure -V > "$R/multi-device.log" 2>&1
step e2e.gpu_multi_device $? $(( $(date +%s) - s ))
tar -czf "$R/callH.tgz" -C /tmp callH
cat "$R/env.txt" "$R/steps.txt"
head -6 $R/scaling-summary.txt; grep -c agree $R/scaling-summary.txt; grep DIFFER $R/scaling-summary.txt; tail -1 $R/scaling-summary.txt
grep -E "^[0-9]+: (ok|FAIL|worker|Ctrl|note)|tests passed|Passed|Failed" "$R/multi-device.log" | tail -12
