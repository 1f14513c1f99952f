#!/usr/bin/env bash
# Device call 1 (H100): the GPU suite of this commit (cuBLAS now loaded on first use), and the
# time of a read-only `occtune query --device UUID` process after a real tune.
set -u
[ -x build/autotuner/occtune ] || { tar -xJf carry/build.tar.xz -C /tmp && rm -rf build && mv /tmp/pack build; }
R=$OUT; O=build/autotuner/occtune
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv; echo "commit $(cat carry/commit)"; } > "$R/env.txt"
ctest --test-dir build -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1; echo "ctest-gpu rc=$?" | tee -a "$R/steps.txt"
tail -5 "$R/ctest-gpu.log"
# A real store, then read-only queries by UUID (no CUDA context, no cuBLAS) timed per process.
"$O" tune --shape 1024x1024x1024 --db /tmp/q.db --quiet > "$R/tune.txt" 2>&1; echo "tune rc=$?" | tee -a "$R/steps.txt"
U=$("$O" devices --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["devices"][0]["uuid"])')
python3 - "$O" "$U" > "$R/query-time.txt" 2>&1 <<'PY'
import subprocess, sys, time, statistics
occtune, uuid = sys.argv[1:3]
cmd = [occtune, "query", "--db", "/tmp/q.db", "--device", uuid, "--shape", "1024x1024x1024"]
subprocess.run(cmd, check=True, capture_output=True)  # page cache warm
times = []
for _ in range(30):
    t = time.perf_counter(); r = subprocess.run(cmd, capture_output=True); times.append(time.perf_counter() - t)
    assert r.returncode == 0, r.stderr
print("occtune query --device UUID, 30 processes: median %.1f ms, min %.1f, max %.1f" % (
    statistics.median(times) * 1e3, min(times) * 1e3, max(times) * 1e3))
print(r.stdout.decode())
maps = subprocess.run(["bash", "-c", "grep -c libcublas /proc/self/maps || true"], capture_output=True)
PY
cat "$R/query-time.txt" | head -3
cat "$R/steps.txt"
