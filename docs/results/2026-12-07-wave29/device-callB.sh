#!/usr/bin/env bash
# Device call B (one GPU), prepared in wave 29 and not run: every start that session was refused
# until its device time was spent (README). For the next session's first call, on the build of
# carry/commit (main at that call; 1d47f86's kernels, whose last two changes, the 32-row rings
# without DenseWindowVec and dense_vec_applies, have not run on a GPU as a build) and the lab
# (lab/rowdot_lab.cu) built at the same commit, in order of need: `ctest -L gpu`;
# compute-sanitizer where the windowed rings for M <= 16 run; the lab on wave 26's M <= 16 set
# with N odd, with those rings split over 5-8 (16 rows) and 3, 6, 8 (8 rows) beside the
# registered 2-4; the lab's --one-per-sm on the 16- and 32-row rings for N <= 16 at
# 1000x12x100000 and 1000x12x100001 (are the splits over 4 and 8 slow there because two blocks
# share an SM? PERFORMANCE.md, "Next steps"); Nsight Compute (warp stall reasons, each SM's
# active cycles: min, mean, max) on the 16-row ring over 7's window and dense-B kernels, the
# 32-row ring over 7's DenseWindow, the 32-row ring's dense-B kernel over 3 and over 4 at
# 1000x12x100000, and the M <= 16 ring over 4's window and aligned kernels; the HBM set for
# M <= 16 with N odd; the whole suite twice (the issue asks for two runs on the H100); wave
# 26's HBM set with B's rows misaligned.
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
# The splits over 4 and 8 at 1000x12x100000 (wave 28's lab: 192-195 us against 152-154 over 2,
# 3 and 7): the same kernels with one block an SM (--one-per-sm), twice.
for run in 1 2; do
  s=$SECONDS
  timeout 60 /tmp/labs/rowdot_lab_new --one-per-sm --only "c16 r" 1000x12x100000 1000x12x100001 \
    > "$W/lab-1sm-$run.txt" 2>&1
  step "rowdot_lab 1sm run $run" $? $((SECONDS - s))
done
grep -h WRONG "$W"/lab-1sm-*.txt | sort | uniq -c >> "$T"
grep -hE "^[0-9]+x|S(16|32) c16 r(256|128) s[34]( x[0-9])? (dense|dvwin|dwin)" "$W"/lab-1sm-*.txt \
  | sed -E 's/ +/ /g' >> "$T"
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
s32x=SkinnyPipeInILNS_6LayoutE0ELi32ELi16ELi128ELi4ELb0ELi
profile s32-dense-x3 "${s32x}3ELb1ELi2ELi1ELb0EE" 1000x12x100000
profile s32-dense-x4 "${s32x}4ELb1ELi2ELi1ELb0EE" 1000x12x100000
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
