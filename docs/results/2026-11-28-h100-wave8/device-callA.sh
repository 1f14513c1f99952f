#!/usr/bin/env bash
# Device call A (4 H100s), wave 8. Issue #17's runs on several GPUs: the scaling of a multi-shape
# tune on 1, 2 and 4 GPUs with the winners compared to the 1-GPU run, then one with --spread
# none; the multi-device e2e test (faults per GPU, queries per UUID, Ctrl-C). Then, one GPU each,
# at once: GPU 0 every GPU test at HEAD; GPUs 1 and 2 every family exhaustively on the suite's
# shapes below 0.90 (issue #18's landscape); GPU 3 the suite once at HEAD and cuBLAS's kernels
# per weak shape under ncu.
set -u
rm -rf build-h100 && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callA; mkdir -p $W
O=$PWD/build-h100/autotuner/occtune
{ date -u; echo "commit $(cat carry/commit)"; $O --version; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,clocks.max.sm,pci.bus_id --format=csv,noheader;
  nvidia-smi topo -m; } > "$R/env.txt" 2>&1
step() { echo "$1 rc=$2 in $3 s" >> "$R/steps.txt"; }

s=$(date +%s)
timeout 260 bash scripts/multi-gpu-scaling.sh -b $O -o $W/scaling -c "1 2 4" -N > $W/scaling.out 2>&1
step scaling $? $(( $(date +%s) - s ))
s=$(date +%s)
timeout 200 bash tests/e2e/gpu_multi_device.sh $O . > $W/multi-device.log 2>&1
step e2e.gpu_multi_device $? $(( $(date +%s) - s ))

landscape() {  # GPU SHAPE...
  local g=$1; shift
  for sh in "$@"; do
    CUDA_VISIBLE_DEVICES=$g timeout 60 $O tune --kernel regblocked --kernel pipelined \
      --kernel splitk --kernel streamk --kernel repacked --kernel tma --kernel skinny \
      --shape $sh --strategy exhaustive --abandon-factor 0 --wide --db /tmp/land$g.db \
      --format json --output $W/land-$sh.json > $W/land-$sh.txt 2>&1
    echo "landscape $sh rc=$?" >> $W/land$g.steps
    CUDA_VISIBLE_DEVICES=$g $O query --db /tmp/land$g.db --shape $sh --device 0 >> $W/land$g.best 2>&1
  done
}
s=$(date +%s)
(CUDA_VISIBLE_DEVICES=0 timeout 300 ctest --test-dir build-h100 -L gpu -E multi_device \
   --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1; echo "ctest rc=$?" > $W/ctest.rc) &
(landscape 1 256x256x16384 128x128x32768 96x96x65536 16384x128x4096 1536x1536x4096 1x4096x4096) &
(landscape 2 1025x1025x1025 2049x2049x2049 698x2077x4461 3001x1000x4097 717x4789x3329 8x8192x8192) &
(export CUDA_VISIBLE_DEVICES=3
 BENCH_TIMEOUT=100 timeout 130 bash scripts/bench-suite.sh -b $O -o $W/suite > $W/suite.out 2>&1
 echo "suite rc=$?" > $W/suite.rc
 nvcc -O3 -arch=sm_90 lab/cublas_probe.cu -lcublas -o /tmp/cublas_probe &&
 timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
   /tmp/cublas_probe --reps 2 256x256x16384 128x128x32768 96x96x65536 16384x128x4096 \
   1536x1536x4096 1025x1025x1025 2049x2049x2049 698x2077x4461 3001x1000x4097 717x4789x3329 \
   4096x4096x4096 8192x8192x8192 1x4096x4096 8x8192x8192 > $W/cublas-ncu.csv 2>&1
 /tmp/cublas_probe 256x256x16384 128x128x32768 96x96x65536 16384x128x4096 1536x1536x4096 \
   1025x1025x1025 2049x2049x2049 698x2077x4461 3001x1000x4097 717x4789x3329 4096x4096x4096 \
   8192x8192x8192 1x4096x4096 8x8192x8192 > $W/cublas-times.txt 2>&1) &
wait
step parallel-phase 0 $(( $(date +%s) - s ))
cat $W/ctest.rc $W/suite.rc $W/land*.steps >> "$R/steps.txt"
cp $W/scaling/summary.txt "$R/scaling-summary.txt" 2>/dev/null
cp $W/multi-device.log "$R/"
tar -czf "$R/callA.tgz" -C /tmp callA
cat "$R/steps.txt"; cat "$R/scaling-summary.txt"; tail -15 $W/multi-device.log
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$R/ctest-gpu.log" | tail -8
cat $W/land*.best | grep -v "^$" | cut -c1-160 | head -40
grep -E "geometric|self-check" $W/suite.out
