#!/usr/bin/env bash
# Device call F (one H200): lab/gemv_pipe_lab.cu built at 9b8ff08 (the windowed ring without the
# element copies at the start and end of B: call C's kernels) and at carry/commit (the final
# kernels: call E's), run alternately three times each at misaligned M = 1 shapes, to tell the
# cost of the element copies' loop from the boards' spread (call C 24.5 us, call E 26.0 us for
# the 64-column window at 1x4097x4097).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
T=$OUT/results.txt
{ date -u; echo "final: $(cat carry/commit)"; nvidia-smi -L; } > $T 2>&1
for i in 1 2 3; do
  for b in lab_9b8ff08 lab_head; do
    echo "== $b run $i" >> $T
    timeout 60 carry/$b --reps 30 1x4097x4097 1x6002x3001 1x1001x5003 2>&1 \
      | grep -E "aligned|fwindow S1 c64 r128 s4 z1|fwindow S1 c32 r128 s4 z1|fwindow S1 c64 r128 s4 z4|WRONG" >> $T
  done
done
cat $T
