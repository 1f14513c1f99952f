#!/usr/bin/env bash
# Device call G (one H200): the session's final build (carry/commit: the stored policy's
# flush_method, host code only). `ctest -L gpu`; a tune whose protocol line names the flush.
set -u
. scripts/device-call-setup.sh callG
s=$SECONDS
timeout 220 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $((SECONDS - s))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> "$T"
s=$SECONDS
timeout 60 "$O" tune --kernel skinny --shape 8192x16x8192 --db "$W/t.db" > "$W/tune.txt" 2>&1
step "tune skinny 8192x16x8192" $? $((SECONDS - s))
grep -E "protocol:" "$W/tune.txt" >> "$T"
sqlite3 "$W/t.db" "SELECT policy_json FROM runs" >> "$T" 2>&1 ||
  python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT policy_json FROM runs').fetchall())" "$W/t.db" >> "$T"
tar -czf "$R/callG.tgz" -C /tmp callG
cat "$T" | tail -12 | cut -c1-300
