#!/usr/bin/env bash
# Device call J (one H200): lab/ring_read_lab.cu at carry/commit, with the 8192x16x8192 winner's
# pattern with 0-512 FMAs a thread and slab, two blocks an SM, the same with a producer warp
# (cp.async, call I) and with its copies in bulk (cp.async.bulk).
set -u
{ date -u; echo "commit: $(cat carry/commit)"; nvidia-smi -L; } > $OUT/lab.txt
timeout 100 carry/ring_read_lab >> $OUT/lab.txt 2>&1; echo "ring_read_lab rc=$?" >> $OUT/lab.txt
cat $OUT/lab.txt
