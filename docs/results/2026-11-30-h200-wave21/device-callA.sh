#!/usr/bin/env bash
# Device call A (wave 21, one H200): the build of carry/commit, with the tma family's sk 3
# configurations (TmaWavesThenStreamK: the whole waves as a data-parallel launch, the partial
# wave streamed after it). The tma family's GPU tests first, then every GPU test; every tma
# candidate exhaustive (40 samples) at five shapes; `occtune bench --kernel tma` (interleaved
# ratio to cuBLAS) at four.
set -u
. scripts/device-call-setup.sh callA
s=$(date +%s)
timeout 60 build-h100/tests/test_tma_family > "$W/tma-family.log" 2>&1
step "test_tma_family" $? $(( $(date +%s) - s ))
grep -E "^\[  (PASSED|FAILED) |tests ran" "$W/tma-family.log" | head -12 >> $T
s=$(date +%s)
timeout 220 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> $T
for x in 4096x4096x4096 8192x8192x8192 6144x6144x6144 5000x5000x5000 4100x4100x4100; do
  s=$(date +%s)
  timeout 100 $O tune --kernel tma --shape $x --strategy exhaustive --wide --samples 40 \
    --db /tmp/ex-$x.db --force > $W/ex-$x.txt 2>&1
  step "tune $x" $? $(( $(date +%s) - s ))
  echo "== tune $x" >> $T; grep -E "Tma|cuBLAS|cublas" $W/ex-$x.txt | cut -c1-160 >> $T
done
s=$(date +%s)
timeout 120 $O bench --kernel tma --shape 4096x4096x4096 --shape 8192x8192x8192 \
  --shape 6144x6144x6144 --shape 3072x3072x3072 > $W/bench-tma.txt 2>&1
step "bench tma" $? $(( $(date +%s) - s )); cut -c1-200 $W/bench-tma.txt >> $T
tar -czf "$R/callA.tgz" -C /tmp callA
cat "$T" | cut -c1-160 | tail -80
