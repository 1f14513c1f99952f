#!/usr/bin/env bash
# Device call 4 (H100), wave 3: GpuIsolation's failure looked at closely (the test without
# exception catching, its store's rows), issue #18's suite a second time, and the main job
# (`occtune tune`, nine families) timed.
set -u
[ -x build/autotuner/occtune ] || { tar -xJf carry/build.tar.xz -C /tmp && rm -rf build && mv /tmp/pack build; }  # reuses a build left by an earlier call (see device-call8.sh)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "commit $(cat carry/commit)"
which gdb
( cd build/tests && if which gdb >/dev/null; then
    timeout 60 gdb -batch -ex 'catch throw' -ex run -ex bt --args ./test_isolation \
      --gtest_filter=GpuIsolation.PlantedFaultsAreContainedAndTheRunCompletes 2>&1 | tail -40
  else
    timeout 60 ./test_isolation --gtest_filter=GpuIsolation.PlantedFaults* --gtest_catch_exceptions=0 2>&1 | tail -20
  fi ) > "$OUT/isolation-debug.txt" 2>&1
tail -30 "$OUT/isolation-debug.txt"
BENCH_TIMEOUT=400 bash scripts/bench-suite.sh -o "$OUT"; echo "bench-suite rc=$?"
d=$(ls -d "$OUT"/2*/ | head -1); tail -3 "$d/summary.txt"
start=$(date +%s.%N)
timeout 120 build/autotuner/occtune tune --db /tmp/main.db > "$OUT/main-job.txt" 2> "$OUT/main-job.err"
echo "main job rc=$? in $(python3 -c "import time;print(round(time.time()-$start,1))") s (process)"
grep -E 'tuning wall time' "$OUT/main-job.txt"; tail -8 "$OUT/main-job.txt"
