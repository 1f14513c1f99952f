#!/usr/bin/env bash
# Device call 9 (H100), wave 3: the same build as call 8, verbose, for the record: the install
# test (every example built against the packed install; source_kernel's and the user kernels'
# tune, query and application launch) and the stencil5 example's tune table with GB/s.
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "commit $(cat carry/commit)"
timeout 200 ctest --test-dir build -L install -V > "$OUT/ctest-install-verbose.log" 2>&1; echo "install rc=$?"
timeout 100 ctest --test-dir build -R 'e2e.user_kernels_stencil5' -V > "$OUT/stencil5-verbose.log" 2>&1; echo "stencil5 rc=$?"
grep -E 'winner|launch|reference|DRAM|GB/s|limits of|source_kernel' "$OUT/ctest-install-verbose.log" | head -40
grep -E 'DRAM|GB/s|limits of' "$OUT/stencil5-verbose.log" | head -12
