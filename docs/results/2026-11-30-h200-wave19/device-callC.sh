#!/usr/bin/env bash
# Device call C (one H200): lab/ring_read_lab.cu (A's access pattern in the rings for N <= 16,
# nothing computed), lab/rowdot_lab.cu at the 256 MiB N <= 16 shapes in the same session, and
# the SASS of the lab's rings (cuobjdump, where the device has it) for an instruction count.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
{ date -u; echo "commit: $(cat carry/commit)"; nvidia-smi -L; } > $OUT/lab.txt
timeout 120 carry/ring_read_lab >> $OUT/lab.txt 2>&1; echo "ring_read_lab rc=$?" >> $OUT/lab.txt
timeout 120 carry/rowdot_lab 8192x16x8192 8192x8x8192 8192x12x8192 >> $OUT/lab.txt 2>&1
echo "rowdot_lab rc=$?" >> $OUT/lab.txt
which cuobjdump nvdisasm >> $OUT/lab.txt 2>&1
cuobjdump -sass carry/rowdot_lab 2> $OUT/cuobjdump.err | xz -6 > $OUT/rowdot_lab.sass.xz
cat $OUT/lab.txt
