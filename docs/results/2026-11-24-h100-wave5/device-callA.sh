#!/usr/bin/env bash
# Device call A (H100), wave 5: split-K with 8-128 splits on the 128x128, 64x64, 32x32, 32x128
# and 64x128 tiles (issue #18, the long-K small outputs). Every split-K variant raced
# exhaustively on the three long-K suite shapes, then `occtune bench` (default families,
# default strategy with pruning) on the long-K shapes and split-K's other shapes as controls.
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
echo "commit $(cat carry/commit)" > "$R/steps.txt"
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv >> "$R/steps.txt"
for s in 256x256x16384 128x128x32768 96x96x65536; do
  ./build/autotuner/occtune tune --kernel splitk --strategy exhaustive --force --db "$R/exh.db" \
    --shape $s > "$R/exh-$s.txt" 2>&1
  echo "exhaustive splitk $s rc=$?" >> "$R/steps.txt"
done
./build/autotuner/occtune bench --shape 256x256x16384 --shape 128x128x32768 --shape 96x96x65536 \
  --shape 64x64x262144 --shape 1024x1024x1024 --shape 1000x1000x1000 --shape 64x4096x4096 \
  --shape 4096x64x4096 --shape 17x4097x1023 --shape 1536x1536x4096 > "$R/bench.txt" 2>&1
echo "bench rc=$?" >> "$R/steps.txt"
cat "$R/steps.txt"; cat "$R/bench.txt" | grep -v "^occtune bench:" | head -40
for s in 256x256x16384 128x128x32768 96x96x65536; do head -30 "$R/exh-$s.txt"; done
