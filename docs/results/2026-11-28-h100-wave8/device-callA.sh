#!/usr/bin/env bash
# Device call A (one H100), wave 8. No machine of several GPUs was lent when it ran, so issue
# #17's runs are not in it (the multi-device e2e test skips with one GPU). Every GPU test at
# HEAD; every family exhaustively on the suite's shapes below 0.90 and two skinny ones (issue
# #18's landscape); the suite once at HEAD; cuBLAS's kernels per weak shape under ncu.
set -u
rm -rf build-h100 && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callA; mkdir -p $W
O=$PWD/build-h100/autotuner/occtune
{ date -u; echo "commit $(cat carry/commit)"; $O --version; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,clocks.max.sm --format=csv,noheader; } > "$R/env.txt" 2>&1
step() { echo "$1 rc=$2 in $3 s" >> "$R/steps.txt"; }

s=$(date +%s)
timeout 200 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
timeout 30 bash tests/e2e/gpu_multi_device.sh $O . > $W/multi-device.log 2>&1
step e2e.gpu_multi_device $? 0

for sh in 256x256x16384 128x128x32768 96x96x65536 1025x1025x1025 698x2077x4461 1536x1536x4096 \
          3001x1000x4097 2049x2049x2049 16384x128x4096 717x4789x3329 1x4096x4096 8x8192x8192; do
  s=$(date +%s)
  timeout 40 $O tune --kernel regblocked --kernel pipelined \
    --kernel splitk --kernel streamk --kernel repacked --kernel tma --kernel skinny \
    --shape $sh --strategy exhaustive --abandon-factor 0 --wide --db /tmp/land.db \
    --format json --output $W/land-$sh.json > $W/land-$sh.txt 2>&1
  step "landscape $sh" $? $(( $(date +%s) - s ))
done
$O query --db /tmp/land.db --device 0 --format csv --shape 1x1x1 >/dev/null 2>&1
s=$(date +%s)
BENCH_TIMEOUT=100 timeout 130 bash scripts/bench-suite.sh -b $O -o $W/suite > $R/suite.out 2>&1
step suite $? $(( $(date +%s) - s ))
SH="256x256x16384 128x128x32768 96x96x65536 16384x128x4096 1536x1536x4096 1025x1025x1025
 2049x2049x2049 698x2077x4461 3001x1000x4097 717x4789x3329 4096x4096x4096 8192x8192x8192
 1x4096x4096 8x8192x8192"
nvcc -O3 -arch=sm_90 lab/cublas_probe.cu -lcublas -o /tmp/cublas_probe
timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
  /tmp/cublas_probe --reps 1 $SH > $W/cublas-ncu.csv 2>&1
step ncu $? 0
/tmp/cublas_probe $SH > $R/cublas-times.txt 2>&1
python3 - $W > $R/landscape.txt <<'PY'
import json, glob, sys, os
for f in sorted(glob.glob(sys.argv[1] + "/land-*.json")):
    try: doc = json.load(open(f))
    except Exception as e: print(f, "unreadable", e); continue
    for shape in doc["shapes"]:
        cub = shape.get("cublas", {}).get("timing", {}).get("median_ms") if isinstance(shape.get("cublas"), dict) else None
        print("==", shape["shape"], "cublas", cub)
        rows = []
        for k in shape["kernels"]:
            for c in k["candidates"]:
                t = (c.get("timing") or {}).get("median_ms")
                rows.append((t if t else 1e9, k["kernel"], c.get("variant") or c.get("label"), c.get("outcome") or c.get("status")))
        for t, fam, v, o in sorted(rows)[:12]:
            print(f"  {t:10.4f} {fam:10} {o} {v}")
PY
python3 - $W/cublas-ncu.csv > $R/cublas-kernels.txt <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: print(open(sys.argv[1]).read()[-3000:]); sys.exit()
h = rows[0]; ki = h.index("Kernel Name"); vi = h.index("Metric Value"); ui = h.index("Metric Unit")
for r in rows[1:]:
    if "fill" in r[ki]: continue
    print(f"{r[vi]:>12} {r[ui]:5} {r[ki][:150]}")
PY
tar -czf "$R/callA.tgz" -C /tmp callA
cat "$R/env.txt" "$R/steps.txt"; tail -3 $W/multi-device.log
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$R/ctest-gpu.log" | tail -8
grep -E "geometric|self-check" $R/suite.out
cat $R/cublas-times.txt
