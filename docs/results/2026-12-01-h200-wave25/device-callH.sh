#!/usr/bin/env bash
# Device call H (one H200): call G's build (carry/commit). The yardstick (lab/hbm_read_lab.cu: a
# 1 GiB read after the read flush), `bench` on this wave's HBM shapes with K not a multiple of
# 4 (hbm-wave25-suite.txt) twice, wave 22's HBM set of both sides, wave 24's new set, the whole
# suite twice, and the main job; then call G's racecheck again (its 150 s limit cut it off), at
# three shapes that take A's windows and two small ones for the new splits.
set -u
. scripts/device-call-setup.sh callH
t0=$SECONDS; timeout 120 carry/hbm_read_lab > "$W/hbm_read_lab.txt" 2>&1
step hbm_read_lab $? $((SECONDS - t0))
grep -E "best|wrong" "$W/hbm_read_lab.txt" | grep -E "^read|wrong" >> "$T"
suite() {  # NAME FILE
  local t0=$SECONDS
  BENCH_TIMEOUT=100 timeout 120 bash scripts/bench-suite.sh -b "$O" -s "$2" -o "$W/$1" \
    > "$W/$1.out" 2>&1
  step "bench $1" $? $((SECONDS - t0))
  echo "== $1" >> "$T"; cut -c1-150 "$W"/$1/*/summary.txt >> "$T"
}
suite hbm-25-1 docs/results/2026-12-01-h200-wave25/hbm-wave25-suite.txt
suite hbm-both docs/results/2026-11-30-h200-wave22/hbm-both-suite.txt
suite hbm-25-2 docs/results/2026-12-01-h200-wave25/hbm-wave25-suite.txt
suite hbm-new-24 docs/results/2026-11-30-h200-wave24/hbm-wave24-suite.txt
s=$SECONDS
BENCH_TIMEOUT=100 timeout 110 bash scripts/bench-suite.sh -b "$O" -o "$W/suite-1" \
  > "$W/suite-1.out" 2>&1
step "suite 1" $? $((SECONDS - s))
echo "== suite 1" >> "$T"; cut -c1-150 "$W"/suite-1/*/summary.txt >> "$T"
s=$SECONDS
BENCH_TIMEOUT=100 timeout 110 bash scripts/bench-suite.sh -b "$O" -o "$W/suite-2" \
  > "$W/suite-2.out" 2>&1
step "suite 2" $? $((SECONDS - s))
echo "== suite 2" >> "$T"; cut -c1-150 "$W"/suite-2/*/summary.txt >> "$T"
s=$SECONDS
timeout 30 "$O" tune --config configs/default.toml --db /tmp/main.db --quiet > "$W/main-job.txt" 2>&1
step main-job $? $((SECONDS - s))
grep -h "shape wall time" "$W/main-job.txt" >> "$T"
sanitize() {  # TOOL LIMIT SHAPE...
  local tool=$1 limit=$2 t0=$SECONDS; shift 2
  local args=(); for x in "$@"; do args+=(--shape "$x"); done
  timeout "$limit" compute-sanitizer --tool "$tool" --kernel-name kns=occtune --print-limit 50 \
    --error-exitcode 86 --log-file "$W/$tool.log" \
    "$O" tune --no-isolation --quiet --format json --db "$W/$tool.db" --kernel skinny \
      "${args[@]}" --min-tile 1 --strategy exhaustive --samples 1 --max-samples 1 \
      --warmup 0 --min-seconds 0 --settle-ms 0 --settle-timeout-ms 0 > "$W/$tool.json" \
      2> "$W/$tool.stderr"
  step "$tool skinny" $? $((SECONDS - t0))
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$W/$tool.log" | tail -1 >> "$T"
  python3 - "$W/$tool.json" >> "$T" <<'PY'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
c = collections.Counter(x["outcome"] for s in doc["shapes"] for k in s["kernels"]
                        for x in k["candidates"])
print(f"{sum(c.values())} candidates over {len(doc['shapes'])} shapes: {dict(c)}")
PY
}
sanitize racecheck 230 64x16x517 65x10x1030 129x8x771 16x200x516 130x16x1028
tar -czf "$R/callH.tgz" -C /tmp callH
grep -E "rc=|geometric|lowest|wall time|1024 MiB|hbm_|SUMMARY|candidates|^(4096x4096x4096|8192x8192x8192) " \
  "$T" | cut -c1-150 | head -90
