#!/usr/bin/env bash
# Device call C (one H200, labs only): why call B's swizzled rows lost 2.5% at 8192x12x8192
# (N = 12: the 16-column tile's last lanes past N, zero-filled). lab/rowdot_lab.cu as `main`
# (7ec46e6), `swz` (call B's) and `swz2` (swz with no copy at all for lanes past N in the lean
# copies), alternated twice on N = 12 and 16 shapes; Nsight Compute on each build's 8192x12x8192
# ring.
set -u
. scripts/device-call-setup.sh callC
shapes="8192x12x8192 16384x12x16384 4096x12x4096 12000x12x12000 8192x16x8192 16x8192x8192 12x8192x8192"
for run in 1 2; do
  for b in main swz swz2; do
    s=$SECONDS
    timeout 120 carry/rowdot_$b $shapes > "$W/$b-$run.txt" 2>&1
    step "rowdot_$b run $run" $? $((SECONDS - s))
  done
done
for b in main swz swz2; do
  s=$SECONDS
  timeout 200 ncu --clock-control none --kernel-name-base mangled \
    -k regex:SkinnyPipeSmallNClusterILi64ELi16ELi64ELi4ELi2EEE --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
    --section SourceCounters --section MemoryWorkloadAnalysis --section Occupancy \
    --section LaunchStats --section InstructionStats --section ComputeWorkloadAnalysis \
    -o "$W/ring-$b" carry/rowdot_$b --reps 1 8192x12x8192 > "$W/ncu-$b.out" 2>&1
  step "ncu $b ring 8192x12x8192" $? $((SECONDS - s))
  ncu -i "$W/ring-$b.ncu-rep" --page details --csv > "$R/ring-$b-details.csv" 2>&1
  ncu -i "$W/ring-$b.ncu-rep" --page source --csv --print-source sass > "$W/ring-$b-sass.csv" 2>&1
  xz -9 -k "$W/ring-$b-sass.csv" && cp "$W/ring-$b-sass.csv.xz" "$R/"
done
cp "$W"/*.txt "$R/"
tar -czf "$R/callC.tgz" -C /tmp callC
grep -h WRONG "$W"/*.txt | sort | uniq -c
for b in main swz swz2; do for run in 1 2; do echo "== $b $run"; grep -E "^[0-9]|S64 c16 r64 s4 x2 |S64 c16 r64 s5 x2 |S32 c16 r128 s4 x2 |mring S16 c64 r64 s5|S16 c16 r256 s3 x2 " "$W/$b-$run.txt" | sed -E 's/^ +(.*[^ ]) +([0-9.]+) us.*/[\1 \2]/; s/^([0-9x]+):.*/\1/' | tr '\n' ' ' | sed 's/ \([0-9]*x[0-9]*x[0-9]*\) /\n\1 /g'; echo; done; done
