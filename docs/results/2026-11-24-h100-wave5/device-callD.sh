#!/usr/bin/env bash
# Device call D (H100), wave 5: main at cb089e9 (the sgemm on-miss family fix) plus 128-split
# split-K variants (branch splits128, commit in carry/commit): every GPU test; split-K raced
# exhaustively on very long K shapes; `occtune bench` (default strategy, pruning) on them.
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
{ date -u; echo "commit $(cat carry/commit)"; build/autotuner/occtune --version; } > "$R/env.txt" 2>&1
start=$(date +%s)
timeout 240 ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
echo "ctest -L gpu rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
for s in 64x64x262144 96x96x65536 128x128x32768 32x32x524288; do
  ./build/autotuner/occtune tune --kernel splitk --strategy exhaustive --force --db "$R/exh.db" \
    --shape $s > "$R/exh-$s.txt" 2>&1
  echo "exhaustive splitk $s rc=$?" >> "$R/steps.txt"
done
./build/autotuner/occtune bench --shape 64x64x262144 --shape 96x96x65536 --shape 128x128x32768 \
  --shape 256x256x16384 --shape 32x32x524288 > "$R/bench.txt" 2>&1
echo "bench rc=$?" >> "$R/steps.txt"
cat "$R/env.txt" "$R/steps.txt"
grep -E "tests passed|tests failed|\*\*\*|Failed" "$R/ctest-gpu.log" | tail -6
grep -v "^occtune: info" "$R/bench.txt" | head -12
for s in 64x64x262144 96x96x65536 128x128x32768 32x32x524288; do
  echo "== $s"; grep -E "^splitk " "$R/exh-$s.txt" | sort -k6 -n | head -5 | cut -c1-170; done
