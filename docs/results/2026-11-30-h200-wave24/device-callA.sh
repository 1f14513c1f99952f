#!/usr/bin/env bash
# Device call A (one H200, labs only): lab/rowdot_lab.cu built against kernels/skinny_pipe.cuh
# as at 7ec46e6 (`main`) and with the row groups of the rings for N <= 16 in every warp's lanes
# (`lanes`), alternated twice, each run checking every ring against cuBLAS on a NaN-poisoned C;
# then Nsight Compute on lanes' 8192x16x8192 ring (as wave 23's call E profiled main's).
set -u
. scripts/device-call-setup.sh callA
shapes="8192x16x8192 16384x16x16384 8192x12x8192 4096x16x4096 8192x8x8192 12000x16x12000 32768x16x4096 6000x10x20000 2000x16x50000 16x8192x8192"
for run in 1 2; do
  for b in main lanes; do
    s=$SECONDS
    timeout 120 carry/rowdot_$b $shapes > "$W/$b-$run.txt" 2>&1
    step "rowdot_$b run $run" $? $((SECONDS - s))
  done
done
s=$SECONDS
timeout 200 ncu --clock-control none --kernel-name-base mangled \
  -k regex:SkinnyPipeSmallNClusterILi64ELi16ELi64ELi4ELi2EEE --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
  --section SourceCounters --section MemoryWorkloadAnalysis --section Occupancy \
  --section LaunchStats --section InstructionStats --section ComputeWorkloadAnalysis \
  -o "$W/ring" carry/rowdot_lanes --reps 1 8192x16x8192 > "$W/ncu.out" 2>&1
step "ncu lanes ring 8192x16x8192" $? $((SECONDS - s))
ncu -i "$W/ring.ncu-rep" --page details --csv > "$R/ring-details.csv" 2>&1
ncu -i "$W/ring.ncu-rep" --page source --csv --print-source sass > "$W/ring-sass.csv" 2>&1
xz -9 -k "$W/ring-sass.csv" && cp "$W/ring-sass.csv.xz" "$R/"
cp "$W"/*.txt "$R/"
tar -czf "$R/callA.tgz" -C /tmp callA
grep -h WRONG "$W"/*.txt | sort | uniq -c
for b in main lanes; do for run in 1 2; do echo "== $b $run"; grep -E "^[0-9]|S64 c16 r64 s4 x2 |S64 c16 r64 s5 x2 |S32 c16 r128 s4 x2 |S64 c8 r128 s3 |S64 c8 r128 s3 x2 |mring S16 c64 r64 s5|S16 c16 r256 s3 x2 " "$W/$b-$run.txt" | awk '/^[0-9]/{printf "\n%s ", $1; next} {printf "[%s %s %s %s %s] %s ", $2,$3,$4,$5,$6,$7} END{print ""}'; done; done
