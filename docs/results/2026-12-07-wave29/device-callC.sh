#!/usr/bin/env bash
# Device call C (one GPU), prepared in wave 29 and not run (the session's device time was spent
# by refused starts before it could start: README): call B's steps cut to about 300 s, for a
# session with little device time, in order of need, each step archived: the lab (built at the
# call's commit) on wave 26's M <= 16 set with N odd, the windowed rings over 2-8 side by side,
# twice; `bench` on that set; compute-sanitizer (memcheck, synccheck) over skinny where those
# rings run, and the planted-fault control; the GPU tests of the skinny family; Nsight Compute
# (warp stalls, each SM's active cycles) on the 16-row ring over 7's window and dense-B kernels
# and the M <= 16 ring over 4's window and aligned kernels.
set -u
. scripts/device-call-setup.sh callC
tar -xJf carry/labs.tar.xz -C /tmp
arch() { tar -czf "$R/callC.tgz" -C /tmp callC; }
shapes_m="16x9999x7777 12x8191x8191 16x12345x6789 9x10001x10001 16x16383x16383 13x7777x20001
  16x20001x5003 8x9999x7777 5x12001x12001"
for run in 1 2; do
  s=$SECONDS
  timeout 60 /tmp/labs/rowdot_lab_new $shapes_m > "$W/lab-m-$run.txt" 2>&1
  step "rowdot_lab m run $run" $? $((SECONDS - s))
done
grep -h WRONG "$W"/lab-*.txt | sort | uniq -c >> "$T"
for f in "$W"/lab-*.txt; do
  awk -v b="$(basename "$f" .txt)" '/^[0-9]+x/{s=$1; print b, $0; n=0} /^  (m?ring|mwin)/{ if (n<6) {n++; print b, s, $0} }' "$f"
done | sed -E 's/ +/ /g' >> "$T"
arch
t0=$SECONDS; timeout 30 carry/hbm_read_lab > "$W/hbm_read_lab.txt" 2>&1
step hbm_read_lab $? $((SECONDS - t0))
grep -E "best|wrong" "$W/hbm_read_lab.txt" | grep -E "^read|wrong" >> "$T"
suite hbm-26m docs/results/2026-12-01-h200-wave26/hbm-wave26m-suite.txt
arch
shapes="16x257x515 12x1001x1003 9x513x2051 16x999x4097 13x777x8193 16x4097x1031 8x257x2049
  5x1001x1003 16x65x16385"
sanitize memcheck 60 $shapes
sanitize synccheck 60 $shapes
sanitize_control
arch
s=$SECONDS
timeout 120 ctest --test-dir build-h100 -L gpu -R 'Skinny|OddShapes|RoundShapes|EveryConfigurationOfEveryFamily' \
  --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step "ctest-gpu skinny" $? $((SECONDS - s))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> "$T"
arch
extra=sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max
profile() {  # NAME REGEX SHAPE
  local t0=$SECONDS
  timeout 40 ncu --clock-control none --kernel-name-base mangled -k "regex:$2" \
    --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
    --section InstructionStats --metrics "$extra" -o "$W/$1" \
    /tmp/labs/rowdot_lab_new --reps 1 "$3" > "$W/$1.out" 2>&1
  step "ncu $1 $3" $? $((SECONDS - t0))
  ncu -i "$W/$1.ncu-rep" --page raw --csv > "$W/$1-raw.csv" 2>&1
  python3 - "$W/$1-raw.csv" "$1" >> "$T" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
if len(rows) < 3:
    print("ncu", sys.argv[2], "no data:", " ".join(" ".join(r) for r in rows)[:300]); sys.exit()
keep = ("gpu__time_duration.sum", "sm__cycles_active", "smsp__inst_executed.sum",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed", "launch__grid_size")
for n, v in zip(rows[0], rows[2]):
    try:
        x = float(v.replace(",", ""))
    except ValueError:
        x = 0.0
    if n.startswith(keep) or ("issue_stalled" in n and x >= 0.02):
        print("ncu", sys.argv[2], n, v[:120])
PY
  arch
}
s16=SkinnyPipeInILNS_6LayoutE0ELi16ELi16ELi256ELi3ELb0ELi7ELb1ELi1E
profile s16-dvwin "${s16}Li2ELb1EE" 1000x12x100001
profile m16-window "SkinnyPipeWindowClusterILi16ELi64ELi64ELi4ELi4EE" 16x9999x7777
profile s16-dense "${s16}Li1ELb0EE" 1000x12x100000
profile m16-aligned "SkinnyPipeClusterILi16ELi64ELi64ELi4ELi4EE" 16x10000x10000
grep -E "rc=|tests|geometric|SUMMARY|candidates|control" "$T" | cut -c1-160 | head -40
