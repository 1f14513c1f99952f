#!/usr/bin/env bash
# Device call G (one H200): the build of carry/commit (A's windows in a kernel of their own, the
# cluster splits of 3-8 registered). `ctest -L gpu`; compute-sanitizer over skinny: memcheck
# and synccheck at call D's shapes (scripts/sanitize.sh's skinny shapes and eight that take the
# windows) and four for the new splits (K long enough for 8 blocks, M <= 16 over 3 and 4),
# racecheck at five of them, the planted-fault control.
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
  100x16x1028 70x8x520 90x7x1030 64x16x517 130x12x2051 65x10x1030 129x8x771 1000x16x8195
  64x15x69 200x16x3 65x16x259 130x16x4100 129x8x8196 16x1000x4100 13x200x2051"
sanitize memcheck 150 $shapes
sanitize synccheck 150 $shapes
sanitize racecheck 150 1x1x1 64x16x517 65x10x1030 129x8x771 16x1000x4100
s=$SECONDS
OCCTUNE_TEST_KERNELS=1 timeout 60 compute-sanitizer --tool memcheck --kernel-name kns=occtune \
  --print-limit 5 --log-file "$W/control.log" "$O" tune --no-isolation --quiet \
  --db "$W/control.db" --kernel planted_faults --shape 256x256x256 --samples 1 --max-samples 1 \
  --warmup 0 --min-seconds 0 > /dev/null 2>&1
echo "control rc=$? in $((SECONDS - s)) s: $(grep -c 'Invalid __global__' "$W/control.log") invalid accesses, $(grep -oE 'ERROR SUMMARY: [0-9]+ error' "$W/control.log" | tail -1)" >> "$T"
tar -czf "$R/callG.tgz" -C /tmp callG
grep -E "rc=|tests|SUMMARY|candidates|control|Failed" "$T" | cut -c1-160 | head -40
