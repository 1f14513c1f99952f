#!/usr/bin/env bash
# Device call M (one H200): call I's build (266c7b2, the kernels of HEAD) under
# scripts/sanitize.sh over every family (memcheck, racecheck, initcheck, synccheck at its odd
# and aligned shapes; the planted-fault control), which call I ran for skinny and tma only.
set -u
. scripts/device-call-setup.sh callM
s=$SECONDS
timeout 540 bash scripts/sanitize.sh --occtune "$O" --out "$W/sanitize" > "$W/sanitize.out" 2>&1
step sanitize $? $((SECONDS - s))
cat "$W/sanitize/summary.txt" >> "$T"
tar -czf "$R/callM.tgz" -C /tmp callM
grep -E "rc=|memcheck|racecheck|initcheck|synccheck|control" "$T" | cut -c1-160
