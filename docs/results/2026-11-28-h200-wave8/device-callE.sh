#!/usr/bin/env bash
# Device call E (nvidia-h200-x2: two H200s of one host), wave 8. The first machine with several
# GPUs lent to the project: issue #17's runs (every GPU test, e2e.gpu_multi_device among them,
# now with two GPUs; scripts/multi-gpu-scaling.sh on 1 and 2 GPUs and --spread none), then
# issue #18's checks of the build at carry/commit (the lab on the weak shapes, the main job,
# the suite twice) on GPU 0.
set -u
rm -rf build-h100 && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callE; mkdir -p $W
O=$PWD/build-h100/autotuner/occtune
{ date -u; echo "commit $(cat carry/commit)"; $O --version; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader
  nvidia-smi topo -m; } > "$R/env.txt" 2>&1
step() { echo "$1 rc=$2 in $3 s" >> "$R/steps.txt"; }
s=$(date +%s)
timeout 300 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
s=$(date +%s)
timeout 120 bash scripts/multi-gpu-scaling.sh -b $O -o $W/scaling -c "1 2" -N \
  1024x1024x1024 2048x2048x2048 4096x1024x2048 1000x1000x1000 3001x1000x4097 2048x512x4096 \
  512x2048x2048 1536x1536x1536 4096x4096x4096 2049x2049x2049 698x2077x4461 1025x1025x1025 \
  256x256x16384 4096x64x4096 64x4096x4096 717x4789x3329 > $R/scaling.out 2>&1
step multi-gpu-scaling $? $(( $(date +%s) - s ))
cp $W/scaling/summary.txt $R/scaling-summary.txt 2>/dev/null
s=$(date +%s)
timeout 60 carry/midsize_lab 1025x1025x1025 2049x2049x2049 698x2077x4461 3001x1000x4097 \
  717x4789x3329 256x256x16384 128x128x32768 96x96x65536 16384x128x4096 1536x1536x4096 \
  > $R/lab.txt 2>&1
step lab $? $(( $(date +%s) - s ))
s=$(date +%s)
timeout 40 $O tune --config configs/default.toml --db /tmp/main.db --quiet > $W/main-job.txt 2>&1
step main-job $? $(( $(date +%s) - s ))
for i in 1 2; do
  s=$(date +%s)
  BENCH_TIMEOUT=100 timeout 130 bash scripts/bench-suite.sh -b $O -o $W/suite$i > "$R/suite$i.out" 2>&1
  step "suite $i" $? $(( $(date +%s) - s ))
done
tar -czf "$R/callE.tgz" -C /tmp callE
cat "$R/env.txt" "$R/steps.txt"
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Not Run|Skipped" "$R/ctest-gpu.log" | tail -8
grep -E "multi_device" "$R/ctest-gpu.log"
cat $R/scaling-summary.txt | head -12; tail -2 $R/scaling-summary.txt
grep -E "tuning wall" $W/main-job.txt
grep -E "geometric|self-check" "$R/suite1.out" "$R/suite2.out"
