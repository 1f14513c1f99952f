#!/usr/bin/env bash
# Device call D (one H200): the build of carry/commit (StreamKPlan's shares in one helper, so the
# streamk and tma kernels that build their plan on the GPU changed; bench's JSON lists every race
# candidate). `ctest -L gpu` (tests/e2e/gpu_bench.sh checks race_candidates); compute-sanitizer
# memcheck over the stream-K families (streamk, tma, repacked) as scripts/sanitize.sh runs them,
# on its stream-K shapes; every skinny candidate at the two HBM shapes at the line, beside the
# default strategy's pick. lab/rowdot_lab.cu (its timer now the read flush) at the two HBM
# shapes still short, then Nsight Compute on the 8192x16x8192 winner's ring (SkinnyPipeSmallN-
# Cluster<64, 16, 64, 4, 2>) at 1980 MHz with per-instruction stall samples (SourceCounters).
set -u
. scripts/device-call-setup.sh callD
s=$SECONDS
timeout 220 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $((SECONDS - s))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> "$T"
s=$SECONDS
shapes=()
for x in 1x1x1 33x65x17 257x129x515 132x260x72 1025x1025x1025 2180x2080x132; do
  shapes+=(--shape "$x")
done
timeout 200 compute-sanitizer --tool memcheck --kernel-name kns=occtune --print-limit 50 \
  --error-exitcode 86 --log-file "$W/memcheck.log" \
  "$O" tune --no-isolation --quiet --format json --db "$W/memcheck.db" \
    --kernel streamk --kernel tma --kernel repacked "${shapes[@]}" --min-tile 1 \
    --strategy exhaustive --samples 1 --max-samples 1 --warmup 0 --min-seconds 0 \
    --settle-ms 0 --settle-timeout-ms 0 > "$W/memcheck.json" 2> "$W/memcheck.stderr"
step "memcheck streamk/tma/repacked" $? $((SECONDS - s))
grep -E "ERROR SUMMARY" "$W/memcheck.log" | tail -1 >> "$T"
python3 - "$W/memcheck.json" >> "$T" <<'PY'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
c = collections.Counter(x["outcome"] for s in doc["shapes"] for k in s["kernels"]
                        for x in k["candidates"])
print(f"memcheck: {sum(c.values())} candidates over {len(doc['shapes'])} shapes: {dict(c)}")
PY
for shape in 16384x16x16384 16x16384x16384; do
  for strategy in exhaustive halving; do
    s=$SECONDS
    timeout 60 "$O" tune --kernel skinny --shape $shape --strategy $strategy \
      --db "$W/$strategy.db" --format json > "$W/$strategy-$shape.json" 2> "$W/$strategy-$shape.err"
    step "tune skinny $shape $strategy" $? $((SECONDS - s))
    python3 - "$W/$strategy-$shape.json" $shape >> "$T" <<'PY'
import json, sys
k = json.load(open(sys.argv[1]))["shapes"][0]["kernels"][0]
m, n, kk = map(int, sys.argv[2].split("x"))
ok = sorted((c for c in k["candidates"] if c["outcome"] == "ok"),
            key=lambda c: c["timing"]["median_ms"])
w = k["candidates"][k["winner"]]
for c in ok[:3] + [w]:
    ms = c["timing"]["median_ms"]
    print(f"{sys.argv[2]} {'winner ' if c is w else ''}{c['label']} {ms:.4f} ms "
          f"{max(m * kk, kk * n) * 4 / ms / 1e9:.2f} TB/s")
PY
  done
done
s=$SECONDS
timeout 120 carry/rowdot_lab 8192x16x8192 16x8192x8192 > "$R/rowdot_lab.txt" 2>&1
step "rowdot_lab 8192x16x8192 16x8192x8192" $? $((SECONDS - s))
s=$SECONDS
timeout 200 ncu --clock-control none --kernel-name-base mangled \
  -k regex:SkinnyPipeSmallNClusterILi64ELi16ELi64ELi4ELi2EEE --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
  --section SourceCounters --section MemoryWorkloadAnalysis --section Occupancy \
  --section LaunchStats --section InstructionStats \
  -o "$W/ring" carry/rowdot_lab --reps 1 8192x16x8192 > "$W/ncu.out" 2>&1
step "ncu ring 8192x16x8192" $? $((SECONDS - s))
ncu -i "$W/ring.ncu-rep" --page details --csv > "$R/ring-details.csv" 2>&1
ncu -i "$W/ring.ncu-rep" --page source --csv --print-source sass > "$W/ring-sass.csv" 2>&1
xz -9 -k "$W/ring-sass.csv" && cp "$W/ring-sass.csv.xz" "$R/"
tar -czf "$R/callD.tgz" -C /tmp callD
grep -E "rc=|tests|SUMMARY|memcheck|TB/s" "$T" | cut -c1-150 | head -40
