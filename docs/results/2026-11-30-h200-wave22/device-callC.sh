#!/usr/bin/env bash
# Device call C (one H200): the read flush's build (carry/build.tar.xz) and the memset flush's
# (carry/build-old.tar.xz). lab/hbm_read_lab.cu `dirty`: a 256 MiB read after X MiB of dirty
# lines (0-120 MiB; the L2 is 60 MiB). `bench` on flush-ab-suite.txt with the old and the new
# build alternated three times. compute-sanitizer memcheck on a tune (the flush kernel runs
# before every sample). The held-out tail suite of wave 21 with the new build.
set -u
. scripts/device-call-setup.sh callC
S=docs/results/2026-11-30-h200-wave22
mv build-h100 build-new
tar -xJf carry/build-old.tar.xz -C /tmp && rm -rf build-old && mv /tmp/pack build-old
echo "old build: $(cat carry/commit-old)" >> "$T"
use() { ln -sfn "$PWD/build-$1" build-h100; }
s=$SECONDS
timeout 60 carry/hbm_read_lab dirty >> "$T" 2>&1
step "hbm_read_lab dirty" $? $((SECONDS - s))
for run in 1 2 3; do
  for b in old new; do
    use $b
    s=$SECONDS
    BENCH_TIMEOUT=60 timeout 70 bash scripts/bench-suite.sh -b "$O" -s $S/flush-ab-suite.txt \
      -o "$W/ab-$b-$run" > "$W/ab-$b-$run.out" 2>&1
    step "bench flush-ab $b run $run" $? $((SECONDS - s))
    cut -c1-150 "$W"/ab-$b-$run/*/summary.txt >> "$T"
  done
done
use new
s=$SECONDS
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$O" tune --shape 300x200x100 --kernel tiled_dynamic \
  --db "$W/san.db" --quiet > "$W/memcheck.txt" 2>&1
step "memcheck tune 300x200x100" $? $((SECONDS - s))
tail -3 "$W/memcheck.txt" >> "$T"
s=$SECONDS
BENCH_TIMEOUT=60 timeout 70 bash scripts/bench-suite.sh -b "$O" \
  -s docs/results/2026-11-30-h200-wave21/tail-suite.txt -o "$W/tail" > "$W/tail.out" 2>&1
step "bench tail-suite new" $? $((SECONDS - s))
cut -c1-150 "$W"/tail/*/summary.txt >> "$T"
tar -czf "$R/callC.tgz" -C /tmp callC
grep -E "rc=|dirty|geometric|ERROR SUMMARY|^(4096x4096x4096|1536x1536x1536|8192x16x8192|16x8192x8192) " \
  "$T" | cut -c1-130 | head -70
