#!/usr/bin/env bash
# Device call B (one H200): the build of carry/commit (the dense-B kernel's turned float loads).
# `ctest -L gpu`; compute-sanitizer over skinny: memcheck and synccheck at scripts/sanitize.sh's
# skinny shapes plus shapes that take the dense-B kernel's float loads (N not a multiple of 4, B
# dense, at 8 and 16 columns, in and out of clusters, its lean loop and its tested copies),
# racecheck at two, the planted-fault control; the yardstick (lab/hbm_read_lab.cu) and `bench`
# on wave 24's HBM set and this wave's (hbm-wave26-suite.txt); then call A's lab at K a
# multiple of 4 whose rows of A start 32, 64 or 96 bytes past a 128-byte line, against K whose
# rows start on one (is 9000x14x9000's slowness its rows' alignment?).
set -u
. scripts/device-call-setup.sh callB
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
  100x16x1028 70x8x520 90x7x1030 65x10x1030 129x8x771 1000x15x4097
  70x14x2048 130x13x4100 257x6x2052 129x15x8196 1000x11x4096 64x9x4096 200x5x8192 65x3x1028"
sanitize memcheck 170 $shapes
sanitize synccheck 170 $shapes
sanitize racecheck 140 65x10x1030 130x13x1028
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
suite hbm-26 docs/results/2026-12-01-h200-wave26/hbm-wave26-suite.txt
suite hbm-new-24 docs/results/2026-11-30-h200-wave24/hbm-wave24-suite.txt
s=$SECONDS
timeout 100 carry/rowdot_turn 9000x14x8960 9000x14x9000 9000x14x9008 9000x14x9024 8192x14x8192 \
  8192x14x8200 8192x16x8192 8192x16x8200 10000x10x10000 10000x10x10016 > "$W/align.txt" 2>&1
step "lab alignment" $? $((SECONDS - s))
awk '/^[0-9]+x/{s=$1; best=""} /^  (m?ring|rowdot|ring-dot)/{ if (best=="") {best=1; print s, $0} }' \
  "$W/align.txt" | sed -E 's/ +/ /g' >> "$T"
grep -h WRONG "$W"/align.txt >> "$T"
tar -czf "$R/callB.tgz" -C /tmp callB
grep -E "rc=|tests|SUMMARY|candidates|control|Failed|TB/s|^read|^[0-9]+x" "$T" | cut -c1-160 | head -90
