#!/usr/bin/env bash
# Device call 4 (H100): the sgemm tests and the install test (sgemm_app) again after the fix of
# sgemm_prepare for column-major calls; the README's main job (every family on the default shapes, its summary
# and report) timed, and scripts/report-demo.sh (several shapes, three checks, the report) whose
# HTML is screenshotted on the development machine (scripts/report-screenshot.sh).
set -u
[ -x build/autotuner/occtune ] || { tar -xJf carry/build.tar.xz -C /tmp && rm -rf build && mv /tmp/pack build; }
R=$OUT; O=build/autotuner/occtune
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv; echo "commit $(cat carry/commit)"; } > "$R/env.txt"
# After the fix of sgemm_prepare for column-major calls (call 3 found it through sgemm_app).
ctest --test-dir build -R "SgemmApi|^install" --output-on-failure -V > "$R/ctest-sgemm-install.log" 2>&1; echo "ctest sgemm+install rc=$?" >> "$R/steps.txt"
start=$(date +%s.%N)
"$O" tune --config configs/default.toml --db /tmp/main.db --report /tmp/main-report.html > "$R/main-job.txt" 2> "$R/main-job.err"
rc=$?; end=$(date +%s.%N)
echo "main job rc=$rc, wall $(python3 -c "print(round($end - $start, 1))") s (process start to exit)" >> "$R/steps.txt"
bash scripts/report-demo.sh build /tmp/demo > "$R/report-demo.log" 2>&1; echo "report-demo rc=$?" >> "$R/steps.txt"
cp /tmp/main-report.html /tmp/demo/ 2>/dev/null
tar -czf "$R/demo.tar.gz" -C /tmp demo
cat "$R/steps.txt"; grep -E "tests passed|row-major|col-major|configuration" "$R/ctest-sgemm-install.log" | head -20; tail -25 "$R/main-job.txt"
