#!/usr/bin/env bash
# Device call B (one GPU; wave 29's first call): the build of carry/commit (9bbaa53: main at the
# session's start, 1d47f86, whose last two changes, the 32-row rings without DenseWindowVec and
# dense_vec_applies, had not run on a GPU as a build, plus the 16-row windowed ring for M <= 16
# registered over 5-8 as well as 2-4). `ctest -L gpu`; compute-sanitizer where those rings run;
# the whole suite twice (the issue asks for two runs on the H100); wave 26's two HBM sets (B's
# rows misaligned with N small, and M <= 16 with N odd), not run since wave 26; Nsight Compute on
# five skinny kernels of the lab (lab/rowdot_lab.cu at c897d12; the kernels' code is 1d47f86's),
# with the warp stall reasons and each SM's active cycles (min, mean, max), to find what holds
# the window kernels below the aligned ones: the 16-row ring over 7 (DenseWindowVec at
# 1000x12x100001, its dense-B kernel at 1000x12x100000), the 32-row ring over 7's DenseWindow at
# 1000x12x100001, and the M <= 16 ring over 4 with B's rows through windows (16x9999x7777) and
# aligned (16x10000x10000); and the lab on M <= 16 with N odd, with the windowed rings for
# M <= 16 split over 5-8 (16 rows) and 3, 6 and 8 (8 rows) beside the registered splits.
set -u
. scripts/device-call-setup.sh callB
tar -xJf carry/labs.tar.xz -C /tmp
# In order of need, archived between steps in case the limit cuts the call.
s=$SECONDS
timeout 230 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $((SECONDS - s))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> "$T"
# compute-sanitizer over skinny where the windowed rings for M <= 16 run (N odd, M 9-16 and 5-8),
# the new splits over 5-8 among them, and the planted-fault control.
shapes="16x257x515 12x1001x1003 9x513x2051 16x999x4097 13x777x8193 16x4097x1031 8x257x2049
  5x1001x1003 16x65x16385"
sanitize memcheck 150 $shapes
sanitize synccheck 150 $shapes
sanitize_control
# The lab (same build) on wave 26's M <= 16 set with N odd, with the windowed rings for M <= 16
# over 5-8 as well as 2-4 (16 rows) and over 3, 6 and 8 (8 rows), twice.
shapes_m="16x9999x7777 12x8191x8191 16x12345x6789 9x10001x10001 16x16383x16383 13x7777x20001
  16x20001x5003 8x9999x7777 5x12001x12001"
for run in 1 2; do
  s=$SECONDS
  timeout 100 /tmp/labs/rowdot_lab_new $shapes_m > "$W/lab-m-$run.txt" 2>&1
  step "rowdot_lab m run $run" $? $((SECONDS - s))
done
grep -h WRONG "$W"/lab-*.txt | sort | uniq -c >> "$T"
for f in "$W"/lab-*.txt; do
  awk -v b="$(basename "$f" .txt)" '/^[0-9]+x/{s=$1; print b, $0; n=0} /^  (m?ring|mwin)/{ if (n<6) {n++; print b, s, $0} }' "$f"
done | sed -E 's/ +/ /g' >> "$T"
tar -czf "$R/callB.tgz" -C /tmp callB
t0=$SECONDS; timeout 60 carry/hbm_read_lab > "$W/hbm_read_lab.txt" 2>&1
step hbm_read_lab $? $((SECONDS - t0))
grep -E "best|wrong" "$W/hbm_read_lab.txt" | grep -E "^read|wrong" >> "$T"
extra=sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max
extra=$extra,sm__inst_executed.min,sm__inst_executed.max,sm__warps_active.avg.pct_of_peak_sustained_active
profile() {  # NAME REGEX SHAPE
  local t0=$SECONDS
  timeout 120 ncu --clock-control none --kernel-name-base mangled -k "regex:$2" \
    --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
    --section Occupancy --section LaunchStats --section InstructionStats \
    --section MemoryWorkloadAnalysis --metrics "$extra" -o "$W/$1" \
    /tmp/labs/rowdot_lab_new --reps 1 "$3" > "$W/$1.out" 2>&1
  step "ncu $1 $3" $? $((SECONDS - t0))
  ncu -i "$W/$1.ncu-rep" --page raw --csv > "$W/$1-raw.csv" 2>&1
  python3 - "$W/$1-raw.csv" "$1" >> "$T" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
if len(rows) < 3:
    print("ncu", sys.argv[2], "no data:", " ".join(" ".join(r) for r in rows)[:300]); sys.exit()
names, data = rows[0], rows[2]
keep = ("gpu__time_duration.sum", "sm__cycles_active", "sm__inst_executed.m",
        "gpc__cycles_elapsed.max", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
        "smsp__inst_executed.sum", "launch__grid_size", "launch__registers_per_thread",
        "sm__warps_active", "Kernel Name")
for n, v in zip(names, data):
    try:
        x = float(v.replace(",", ""))
    except ValueError:
        x = 0.0
    if n.startswith(keep) or ("issue_stalled" in n and x >= 0.02):
        print("ncu", sys.argv[2], n, v[:120])
PY
}
s16=SkinnyPipeInILNS_6LayoutE0ELi16ELi16ELi256ELi3ELb0ELi7ELb1ELi1E
s32=SkinnyPipeInILNS_6LayoutE0ELi32ELi16ELi128ELi4ELb0ELi7ELb1ELi2E
profile s16-dvwin "${s16}Li2ELb1EE" 1000x12x100001
profile s16-dense "${s16}Li1ELb0EE" 1000x12x100000
profile s32-dwin "${s32}Li1ELb1EE" 1000x12x100001
profile m16-window "SkinnyPipeWindowClusterILi16ELi64ELi64ELi4ELi4EE" 16x9999x7777
profile m16-aligned "SkinnyPipeClusterILi16ELi64ELi64ELi4ELi4EE" 16x10000x10000
tar -czf "$R/callB.tgz" -C /tmp callB
suite hbm-26m docs/results/2026-12-01-h200-wave26/hbm-wave26m-suite.txt
suite suite-1
tar -czf "$R/callB.tgz" -C /tmp callB
suite suite-2
suite hbm-26 docs/results/2026-12-01-h200-wave26/hbm-wave26-suite.txt
tar -czf "$R/callB.tgz" -C /tmp callB
grep -E "rc=|tests|geometric|lowest|^read|^ncu .*(duration|cycles_active|Kernel)|^(4096x4096x4096|8192x8192x8192) " \
  "$T" | cut -c1-160 | head -70
