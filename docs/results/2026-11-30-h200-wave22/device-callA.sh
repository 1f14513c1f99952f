#!/usr/bin/env bash
# Device call A (one H200): does the L2 flush cost the timed kernel? The flush before every
# sample was a memset of twice the L2, which leaves up to an L2 of dirty lines that the timed
# launch writes back to HBM beside its own reads. lab/hbm_read_lab.cu times the yardstick read
# after each kind of flush (memset, memset+read, read, none; 16 MiB shows whether a flush
# evicts); then `bench` on the HBM shapes of both sides with the build before the change
# (carry/build-old.tar.xz, 229c189: the memset flush) and after it (carry/build.tar.xz: the read
# flush), alternated twice.
set -u
. scripts/device-call-setup.sh callA
S=docs/results/2026-11-30-h200-wave22
mv build-h100 build-new
tar -xJf carry/build-old.tar.xz -C /tmp && rm -rf build-old && mv /tmp/pack build-old
echo "old build: $(cat carry/commit-old)" >> "$T"
t0=$SECONDS; timeout 120 carry/hbm_read_lab > "$R/hbm_read_lab.txt" 2>&1
step hbm_read_lab $? $((SECONDS - t0))
grep -E "flush|best|wrong" "$R/hbm_read_lab.txt" >> "$T"
for run in 1 2; do
  for b in old new; do
    ln -sfn "$PWD/build-$b" build-h100
    t0=$SECONDS
    BENCH_TIMEOUT=100 timeout 120 bash scripts/bench-suite.sh -b "$O" -s $S/hbm-both-suite.txt \
      -o "$W/hbm-$b-$run" > "$W/hbm-$b-$run.out" 2>&1
    step "bench hbm-both $b run $run" $? $((SECONDS - t0))
    cut -c1-150 "$W"/hbm-$b-$run/*/summary.txt >> "$T"
  done
done
tar -czf "$R/callA.tgz" -C /tmp callA
grep -E "best|rc=|flush|geometric|x8192 |x16384 " "$T" | cut -c1-130
