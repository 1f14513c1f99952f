#!/usr/bin/env bash
# Device call E (one H200): call D's build (carry/commit) with the fixed e2e bench test
# (tests/e2e/gpu_bench.sh: a family without a winner), then compute-sanitizer over every family
# (scripts/sanitize.sh: memcheck, initcheck, synccheck, racecheck) with the read flush and
# StreamKPlan's shared helper.
set -u
. scripts/device-call-setup.sh callE
s=$SECONDS
timeout 60 ctest --test-dir build-h100 -R 'e2e.gpu_bench' --output-on-failure > "$W/ctest-bench.log" 2>&1
step "ctest e2e.gpu_bench" $? $((SECONDS - s))
grep -E "tests passed|tests failed|\(Failed\)" "$W/ctest-bench.log" >> "$T"
s=$SECONDS
timeout 450 bash scripts/sanitize.sh --occtune "$O" --out "$W/sanitize" > "$W/sanitize.out" 2>&1
step sanitize $? $((SECONDS - s))
tail -6 "$W/sanitize/summary.txt" >> "$T"
tar -czf "$R/callE.tgz" -C /tmp callE
cat "$T" | tail -12 | cut -c1-200
