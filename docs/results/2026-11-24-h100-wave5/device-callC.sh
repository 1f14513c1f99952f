#!/usr/bin/env bash
# Device call C (H100), wave 5: split-K lab build (branch splitk-stages, commit in carry/commit):
# 4-6 stages and 32-deep slabs on the long-K tiles; every split-K variant raced exhaustively on
# the long-K suite shapes and 64x64x262144.
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
echo "commit $(cat carry/commit)" > "$R/steps.txt"
for s in 256x256x16384 128x128x32768 96x96x65536 64x64x262144; do
  ./build/autotuner/occtune tune --kernel splitk --strategy exhaustive --force --db "$R/exh.db" \
    --shape $s > "$R/exh-$s.txt" 2>&1
  echo "exhaustive splitk $s rc=$?" >> "$R/steps.txt"
done
cat "$R/steps.txt"
for s in 256x256x16384 128x128x32768 96x96x65536 64x64x262144; do
  echo "== $s"; grep -E "^splitk " "$R/exh-$s.txt" | sort -k6 -n | head -6; done
# The repacked copy lab (branch copyfast, docs/results/2026-11-24-h100-wave5/lab/repack_copy_lab.cu),
# compiled on the build machine with
#   nvcc -std=c++20 -O3 -arch=sm_90 -cudart static -I. -Iinclude <lab> -o carry/lab/repack_copy_lab
./carry/lab/repack_copy_lab > "$R/repack_copy_lab.txt" 2>&1
echo "repack_copy_lab rc=$?" >> "$R/steps.txt"
cat "$R/repack_copy_lab.txt"; tail -1 "$R/steps.txt"
