#!/usr/bin/env bash
# Device call H (H100), wave 7: call G's build with test_tma_family rebuilt (its configuration
# counts were those of before the BK 32 stream-K variants were dropped), then the 2 s tuning
# measurements (device-tune2s.sh: main job, --warmup 3, bench-search, first samples), and tma
# alone at 4096³ twice through tune (exhaustive) and bench (every configuration's median).
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
xz -dc carry/test_tma_family.xz > build/tests/test_tma_family && chmod +x build/tests/test_tma_family
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; O=build/autotuner/occtune
timeout 120 ctest --test-dir build -L gpu -R TmaFamily --output-on-failure -j1 > "$R/ctest-tma.log" 2>&1
echo "ctest -L gpu -R TmaFamily rc=$?" > "$R/steps-H.txt"
mkdir -p /tmp/h
for i in 1 2; do
  timeout 40 $O tune --kernel tma --shape 4096x4096x4096 --strategy exhaustive --db /tmp/h/t$i.db > /tmp/h/tune-tma-4096-$i.txt 2>&1
  timeout 60 $O bench --kernel tma --shape 4096x4096x4096 --shape 8192x8192x8192 > /tmp/h/bench-tma-$i.txt 2>&1
done
tar -czf "$R/callH.tgz" -C /tmp h
bash docs/results/2026-11-25-h100-wave7/device-tune2s.sh
cat "$R/steps-H.txt"; grep -E "tests passed|tests failed" "$R/ctest-tma.log"
for i in 1 2; do grep -E "^ *tma " /tmp/h/tune-tma-4096-$i.txt | awk '{print $2, $NF, $(NF-1), $(NF-2), $(NF-3), $(NF-4), $(NF-5)}' | cut -c1-160; grep -E "^(4096|8192)x" /tmp/h/bench-tma-$i.txt | cut -c1-120; done
