#!/usr/bin/env bash
# Device call E (one H200, lab only): Nsight Compute on the 8192x16x8192 winner's ring
# (SkinnyPipeSmallNCluster<64, 16, 64, 4, 2>) as call D's `lean2` builds it (the final sums as
# float4s, the lean copies), at its own clock, with per-instruction counts and stall samples
# (SourceCounters), to set beside wave 22's call D profile of the ring before.
set -u
. scripts/device-call-setup.sh callE
s=$SECONDS
timeout 200 ncu --clock-control none --kernel-name-base mangled \
  -k regex:SkinnyPipeSmallNClusterILi64ELi16ELi64ELi4ELi2EEE --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
  --section SourceCounters --section MemoryWorkloadAnalysis --section Occupancy \
  --section LaunchStats --section InstructionStats --section ComputeWorkloadAnalysis \
  -o "$W/ring" carry/rowdot_lab_lean2 --reps 1 8192x16x8192 > "$W/ncu.out" 2>&1
step "ncu ring 8192x16x8192" $? $((SECONDS - s))
ncu -i "$W/ring.ncu-rep" --page details --csv > "$R/ring-details.csv" 2>&1
ncu -i "$W/ring.ncu-rep" --page source --csv --print-source sass > "$W/ring-sass.csv" 2>&1
xz -9 -k "$W/ring-sass.csv" && cp "$W/ring-sass.csv.xz" "$R/"
tar -czf "$R/callE.tgz" -C /tmp callE
tail -4 "$T"
