#!/usr/bin/env bash
# Device call K (one H200, lab only): Nsight Compute on the dense-B kernel of the 64-row ring
# split over 2 (SkinnyPipeIn<nn, 64, 16, 64, 4, ..., DENSE>) at 8192x10x8192 (B's rows misaligned,
# read as floats), built as call H's `final3` (the kernels of 266c7b2), to see whether its float
# loads of B meet on the banks as their addresses say.
set -u
. scripts/device-call-setup.sh callK
s=$SECONDS
timeout 200 ncu --clock-control none --kernel-name-base mangled \
  -k regex:SkinnyPipeInILNS_6LayoutE0ELi64ELi16ELi64ELi4ELb0ELi2ELb1ELi4ELb1EEE --launch-count 1 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
  --section SourceCounters --section MemoryWorkloadAnalysis --section Occupancy \
  --section LaunchStats --section InstructionStats --section ComputeWorkloadAnalysis \
  -o "$W/ring" carry/rowdot_final3 --reps 1 8192x10x8192 > "$W/ncu.out" 2>&1
step "ncu dense ring 8192x10x8192" $? $((SECONDS - s))
ncu -i "$W/ring.ncu-rep" --page details --csv > "$W/ring-details.csv" 2>&1
ncu -i "$W/ring.ncu-rep" --page source --csv --print-source sass > "$W/ring-sass.csv" 2>&1
xz -9 -k "$W/ring-sass.csv"
python3 - "$W/ring-sass.csv" >> "$T" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[1]; idx = {n: i for i, n in enumerate(h)}
def g(r, n):
    try: return int(r[idx[n]].replace(',', ''))
    except: return 0
tot = {}
for r in rows[2:]:
    src = r[idx['Source']].strip()
    op = src.split()[0] if src else ''
    if g(r, 'L1 Wavefronts Shared') and g(r, 'Instructions Executed') > 100000:
        key = op.split('.')[0] + ('.128' if '.128' in op else '.64' if '.64' in op else '')
        t = tot.setdefault(key, [0, 0, 0])
        t[0] += g(r, 'Instructions Executed'); t[1] += g(r, 'L1 Wavefronts Shared')
        t[2] += g(r, 'L1 Wavefronts Shared Ideal')
for k, (n, w, i) in sorted(tot.items()):
    print(f"{k}: {n} warp instructions, {w} wavefronts ({w / n:.2f} each), ideal {i} ({i / n:.2f})")
PY
tar -czf "$R/callK.tgz" -C /tmp callK
cp "$W/ring-details.csv" "$W/ring-sass.csv.xz" "$R/"
tail -8 "$T"
