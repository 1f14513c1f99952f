#!/usr/bin/env bash
# Device call C (one GPU, lab and Nsight Compute): why A's window kernels run 10-25% behind the
# aligned kernels of the same ring (call B: 9000x14x9001 2.12 TB/s against 9000x14x9000 2.37,
# 1000x12x100001 2.09 against 1000x12x100000 2.67). lab/rowdot_lab.cu at carry/commit on the
# four shapes, then ncu (sections as wave 22's call D) on one launch each of the 64-row ring over
# 8 (dense-B kernel at 9000x14x9000, DenseWindow at 9000x14x9001) and the 32-row ring over 7
# (dense-B at 1000x12x100000, DenseWindow at 1000x12x100001).
set -u
export PATH=/usr/local/cuda/bin:$PATH
R=${OUT:?}; W=/tmp/callC; T=$R/results.txt
rm -rf "$W" && mkdir -p "$W"
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > "$T" 2>&1
step() { echo "$1 rc=$2 in $3 s" >> "$T"; }
s=$SECONDS
timeout 60 carry/rowdot_lab 9000x14x9000 9000x14x9001 1000x12x100000 1000x12x100001 \
  > "$W/lab.txt" 2>&1
step rowdot_lab $? $((SECONDS - s))
grep -h WRONG "$W/lab.txt" | sort | uniq -c >> "$T"
awk '/^[0-9]+x/{s=$1; print $0; n=0} /^  ring/{ if (n<4) {n++; print s, $0} }' "$W/lab.txt" \
  | sed -E 's/ +/ /g' >> "$T"
grep -E "S64 c16 r64 s4 x8 (dense|dwin) |S32 c16 r128 s4 x7 (dense|dwin) " "$W/lab.txt" \
  | sed -E 's/ +/ /g' >> "$T"
profile() {  # NAME REGEX SHAPE
  local t0=$SECONDS
  timeout 120 ncu --clock-control none --kernel-name-base mangled -k "regex:$2" \
    --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section Occupancy --section LaunchStats --section InstructionStats \
    -o "$W/$1" carry/rowdot_lab --reps 1 "$3" > "$W/$1.out" 2>&1
  step "ncu $1 $3" $? $((SECONDS - t0))
  ncu -i "$W/$1.ncu-rep" --page details --csv > "$R/$1.csv" 2>&1
}
p64=SkinnyPipeInILNS_6LayoutE0ELi64ELi16ELi64ELi4ELb0ELi8ELb1ELi4ELb1E
p32=SkinnyPipeInILNS_6LayoutE0ELi32ELi16ELi128ELi4ELb0ELi7ELb1ELi2ELb1E
profile s64-dense "${p64}Lb0EE" 9000x14x9000
profile s64-dwin "${p64}Lb1EE" 9000x14x9001
profile s32-dense "${p32}Lb0EE" 1000x12x100000
profile s32-dwin "${p32}Lb1EE" 1000x12x100001
tar -czf "$R/callC.tgz" -C /tmp callC
cat "$T"
