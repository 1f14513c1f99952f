#!/usr/bin/env bash
# Device call 4 (H100), wave 2: the three user-kernel examples end to end with their output
# (tune table with the occupancy columns, query, the application's launch; each tuning's wall
# time), and the main job (configs/default.toml, now eight families) timed from start to exit.
set -u
[ -x build/autotuner/occtune ] || { tar -xJf carry/build.tar.xz -C /tmp && rm -rf build && mv /tmp/pack build; }
R=$OUT; O=build/autotuner/occtune
echo "commit $(cat carry/commit)" > "$R/env.txt"; nvidia-smi --query-gpu=name,clocks.sm --format=csv >> "$R/env.txt"
ctest --test-dir build -R "user_kernels" -V > "$R/user-kernels.log" 2>&1; echo "user_kernels rc=$?"
start=$(date +%s.%N)
"$O" tune --config configs/default.toml --db /tmp/main.db > "$R/main-job.txt" 2> "$R/main-job.err"
echo "main job rc=$? wall $(echo "$(date +%s.%N) - $start" | bc) s" | tee -a "$R/env.txt"
grep -E "Tuning wall|wall time|tuning_wall|tuned in|took" "$R/user-kernels.log" | head -12
