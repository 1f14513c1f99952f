#!/usr/bin/env bash
# Device call K (one H200): the build of carry/commit, which registers the 64-column ring for
# M <= 16 with five stages (SkinnyPipeCluster<16, 64, 64, 5, 2>, call J). `ctest -L gpu`;
# compute-sanitizer memcheck and racecheck over the skinny family at scripts/sanitize.sh's shapes
# (its M = 12 shapes take the new ring); `bench` on the HBM shapes (wave 22's set and this
# wave's new one) and the whole suite.
set -u
. scripts/device-call-setup.sh callK
S=docs/results/2026-11-30-h200-wave23
s=$SECONDS
timeout 240 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $((SECONDS - s))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> "$T"
sanitize() {  # TOOL SHAPE...
  local tool=$1 t0=$SECONDS; shift
  local args=(); for x in "$@"; do args+=(--shape "$x"); done
  timeout 150 compute-sanitizer --tool "$tool" --kernel-name kns=occtune --print-limit 50 \
    --error-exitcode 86 --log-file "$W/$tool.log" \
    "$O" tune --no-isolation --quiet --format json --db "$W/$tool.db" --kernel skinny \
      "${args[@]}" --min-tile 1 --strategy exhaustive --samples 1 --max-samples 1 --warmup 0 \
      --min-seconds 0 --settle-ms 0 --settle-timeout-ms 0 > "$W/$tool.json" 2> "$W/$tool.stderr"
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
sanitize memcheck 1x1x1 17x17x17 33x65x17 257x129x515 64x64x64 132x260x72 1x257x515 \
  12x260x516 260x12x516 260x6x1540 257x4x2052 129x1x2052 65x3x2052 100x16x1028 70x8x520 \
  90x7x1030 16x1028x1028
sanitize racecheck 1x1x1 12x68x72 36x4x264 40x16x136 16x132x264
suite() {  # NAME FILE
  local t0=$SECONDS
  BENCH_TIMEOUT=100 timeout 120 bash scripts/bench-suite.sh -b "$O" -s "$2" -o "$W/$1" \
    > "$W/$1.out" 2>&1
  step "bench $1" $? $((SECONDS - t0))
  echo "== $1" >> "$T"; cut -c1-150 "$W"/$1/*/summary.txt >> "$T"
}
suite hbm-both docs/results/2026-11-30-h200-wave22/hbm-both-suite.txt
suite hbm-new $S/hbm-new-suite.txt
s=$SECONDS
BENCH_TIMEOUT=100 timeout 110 bash scripts/bench-suite.sh -b "$O" -o "$W/suite" \
  > "$W/suite.out" 2>&1
step "suite" $? $((SECONDS - s))
echo "== suite" >> "$T"; cut -c1-150 "$W"/suite/*/summary.txt >> "$T"
tar -czf "$R/callK.tgz" -C /tmp callK
grep -E "rc=|tests|SUMMARY|candidates|geometric|hbm_|^(4096x4096x4096|8192x8192x8192) " \
  "$T" | cut -c1-150 | head -70
