#!/usr/bin/env bash
# Device call I (one H200): call H's build again (carry/commit). compute-sanitizer over every
# family (scripts/sanitize.sh: memcheck, racecheck, initcheck, synccheck at odd and aligned
# shapes, whose aligned N = 12, M = 12 and N = 16 shapes take the rings' lean copies, and the
# planted-fault control), then the suite a second time.
set -u
. scripts/device-call-setup.sh callI
s=$SECONDS
timeout 450 bash scripts/sanitize.sh --occtune "$O" --out "$W/sanitize" > "$W/sanitize.out" 2>&1
step sanitize $? $((SECONDS - s))
cat "$W/sanitize/summary.txt" >> "$T"
s=$SECONDS
BENCH_TIMEOUT=100 timeout 110 bash scripts/bench-suite.sh -b "$O" -o "$W/suite-2" \
  > "$W/suite-2.out" 2>&1
step "suite 2" $? $((SECONDS - s))
echo "== suite 2" >> "$T"; cut -c1-150 "$W"/suite-2/*/summary.txt >> "$T"
tar -czf "$R/callI.tgz" -C /tmp callI
grep -E "rc=|memcheck|racecheck|initcheck|synccheck|control|geometric|lowest|^(4096x4096x4096|8192x8192x8192) " \
  "$T" | cut -c1-160 | head -40
