#!/usr/bin/env bash
# Device call G (one H200): the build of carry/commit (call E's kernels and the windowed rings
# for M <= 16 split over clusters of 2-4, registered after call F). `ctest -L gpu`;
# compute-sanitizer over skinny: memcheck and synccheck at scripts/sanitize.sh's skinny shapes
# plus shapes with M <= 16 and N odd (the new variants) and call E's, racecheck at one of the
# new ones, the planted-fault control; the yardstick, `bench` on M <= 16 with N odd
# (hbm-wave26m-suite.txt), wave 25's K-misaligned set, the whole suite twice, the main job.
set -u
. scripts/device-call-setup.sh callG
s=$SECONDS
timeout 230 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $((SECONDS - s))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> "$T"
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
shapes="1x1x1 17x17x17 257x129x515 1x257x515 12x260x516 260x12x516 260x6x1540 257x4x2052
  100x16x1028 70x8x520 90x7x1030 65x10x1030 129x8x771 1000x15x4097 65x14x1031 130x13x4099
  129x6x2051 200x5x8191 16x1001x4097 13x257x515 9x2001x3001 8x1003x2049 5x131x8195 16x260x1030"
sanitize memcheck 170 $shapes
sanitize synccheck 170 $shapes
sanitize racecheck 110 13x257x515
s=$SECONDS
OCCTUNE_TEST_KERNELS=1 timeout 60 compute-sanitizer --tool memcheck --kernel-name kns=occtune \
  --print-limit 5 --log-file "$W/control.log" "$O" tune --no-isolation --quiet \
  --db "$W/control.db" --kernel planted_faults --shape 256x256x256 --samples 1 --max-samples 1 \
  --warmup 0 --min-seconds 0 > /dev/null 2>&1
echo "control rc=$? in $((SECONDS - s)) s: $(grep -c 'Invalid __global__' "$W/control.log") invalid accesses, $(grep -oE 'ERROR SUMMARY: [0-9]+ error' "$W/control.log" | tail -1)" >> "$T"
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
suite hbm-26m docs/results/2026-12-01-h200-wave26/hbm-wave26m-suite.txt
suite hbm-25 docs/results/2026-12-01-h200-wave25/hbm-wave25-suite.txt
for i in 1 2; do
  s=$SECONDS
  BENCH_TIMEOUT=100 timeout 110 bash scripts/bench-suite.sh -b "$O" -o "$W/suite-$i" \
    > "$W/suite-$i.out" 2>&1
  step "suite $i" $? $((SECONDS - s))
  echo "== suite $i" >> "$T"; cut -c1-150 "$W"/suite-$i/*/summary.txt >> "$T"
done
s=$SECONDS
timeout 30 "$O" tune --config configs/default.toml --db /tmp/main.db --quiet > "$W/main-job.txt" 2>&1
step main-job $? $((SECONDS - s))
grep -h "shape wall time" "$W/main-job.txt" >> "$T"
tar -czf "$R/callG.tgz" -C /tmp callG
grep -E "rc=|tests|SUMMARY|candidates|control|Failed|geometric|wall time|1024 MiB|hbm_m|^(4096x4096x4096|8192x8192x8192) " \
  "$T" | cut -c1-150 | head -70
