#!/usr/bin/env bash
# Device call I (one H200): the build of carry/commit (B's rows swizzled, the cluster's sums
# through the inbox, dense B at N a multiple of 4, the dense-B kernel's lean copies).
# `ctest -L gpu`; compute-sanitizer over the two families this wave changed (skinny: its rings;
# tma: its mbarrier wrappers, moved to kernels/mbarrier.cuh): memcheck and synccheck at
# scripts/sanitize.sh's shapes and five that take the new paths (64x12x516: dense B at N = 12
# by the lean copies, K of 8 slabs; 64x10x516: the same at N = 10, rows misaligned; 130x12x2052
# and 1000x12x8196: the same split over clusters and in longer slabs; 16x1000x4100: the rings
# for M <= 16 in a cluster), racecheck at four small ones of them, the planted-fault control.
set -u
. scripts/device-call-setup.sh callI
s=$SECONDS
timeout 220 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $((SECONDS - s))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> "$T"
sanitize() {  # TOOL LIMIT SHAPE...
  local tool=$1 limit=$2 t0=$SECONDS; shift 2
  local args=(); for x in "$@"; do args+=(--shape "$x"); done
  timeout "$limit" compute-sanitizer --tool "$tool" --kernel-name kns=occtune --print-limit 50 \
    --error-exitcode 86 --log-file "$W/$tool.log" \
    "$O" tune --no-isolation --quiet --format json --db "$W/$tool.db" --kernel skinny \
      --kernel tma "${args[@]}" --min-tile 1 --strategy exhaustive --samples 1 --max-samples 1 \
      --warmup 0 --min-seconds 0 --settle-ms 0 --settle-timeout-ms 0 > "$W/$tool.json" \
      2> "$W/$tool.stderr"
  step "$tool skinny tma" $? $((SECONDS - t0))
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$W/$tool.log" | tail -1 >> "$T"
  python3 - "$W/$tool.json" >> "$T" <<'PY'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
c = collections.Counter(x["outcome"] for s in doc["shapes"] for k in s["kernels"]
                        for x in k["candidates"])
print(f"{sum(c.values())} candidates over {len(doc['shapes'])} shapes: {dict(c)}")
PY
}
shapes="1x1x1 17x17x17 33x65x17 257x129x515 64x64x64 132x260x72 1x257x515 12x260x516 260x12x516
  260x6x1540 257x4x2052 129x1x2052 65x3x2052 100x16x1028 70x8x520 90x7x1030 2180x2080x132
  64x12x516 64x10x516 130x12x2052 1000x12x8196 16x1000x4100"
sanitize memcheck 120 $shapes
sanitize synccheck 120 $shapes
sanitize racecheck 200 1x1x1 64x12x516 64x10x516 40x16x136 16x132x264
# The control (scripts/sanitize.sh's): memcheck over the test-only planted faults must report
# the illegal address.
s=$SECONDS
OCCTUNE_TEST_KERNELS=1 timeout 60 compute-sanitizer --tool memcheck --kernel-name kns=occtune \
  --print-limit 5 --log-file "$W/control.log" "$O" tune --no-isolation --quiet \
  --db "$W/control.db" --kernel planted_faults --shape 256x256x256 --samples 1 --max-samples 1 \
  --warmup 0 --min-seconds 0 > /dev/null 2>&1
echo "control rc=$? in $((SECONDS - s)) s: $(grep -c 'Invalid __global__' "$W/control.log") invalid accesses, $(grep -oE 'ERROR SUMMARY: [0-9]+ error' "$W/control.log" | tail -1)" >> "$T"
tar -czf "$R/callI.tgz" -C /tmp callI
grep -E "rc=|tests|SUMMARY|candidates|control|Failed" "$T" | cut -c1-160 | head -40
