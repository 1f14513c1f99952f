#!/usr/bin/env bash
# Device call B (one H200): the read flush's build (carry/build.tar.xz). Nsight Compute on the
# yardstick read after each flush (lab/hbm_read_lab.cu `profile`, the timed reads only, no
# flush of its own): DRAM bytes written and L2 hits show what each flush leaves for the timed
# launch. Then `ctest -L gpu`; the suite with the old build (carry/build-old.tar.xz, the memset
# flush) once and with the new one twice; exhaustive skinny at the two HBM shapes still short;
# the main job.
set -u
. scripts/device-call-setup.sh callB
mv build-h100 build-new
tar -xJf carry/build-old.tar.xz -C /tmp && rm -rf build-old && mv /tmp/pack build-old
echo "old build: $(cat carry/commit-old)" >> "$T"
use() { ln -sfn "$PWD/build-$1" build-h100; }
use new
s=$SECONDS
timeout 120 ncu --clock-control none --cache-control none -k regex:^read_kernel \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct \
  --csv carry/hbm_read_lab profile > "$R/ncu-flush.csv" 2> "$W/ncu.err"
step "ncu hbm_read_lab profile" $? $((SECONDS - s))
s=$SECONDS
timeout 220 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$W/ctest-gpu.log" 2>&1
step ctest-gpu $? $((SECONDS - s))
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$W/ctest-gpu.log" | tail -6 >> "$T"
for run in old new1 new2; do
  use "${run%[12]}"
  s=$SECONDS
  BENCH_TIMEOUT=100 timeout 110 bash scripts/bench-suite.sh -b "$O" -o "$W/suite-$run" \
    > "$W/suite-$run.out" 2>&1
  step "suite $run" $? $((SECONDS - s))
  echo "== suite $run" >> "$T"; cut -c1-150 "$W"/suite-$run/*/summary.txt >> "$T"
done
use new
for shape in 8192x16x8192 16x8192x8192; do
  s=$SECONDS
  timeout 60 "$O" tune --kernel skinny --shape $shape --strategy exhaustive \
    --db "$W/exh.db" --format json > "$W/exh-$shape.json" 2> "$W/exh-$shape.err"
  step "tune exhaustive skinny $shape" $? $((SECONDS - s))
done
s=$SECONDS
timeout 30 "$O" tune --config configs/default.toml --db /tmp/main.db --quiet > "$W/main-job.txt" 2>&1
step main-job $? $((SECONDS - s))
grep -h "shape wall time" "$W/main-job.txt" >> "$T"
tar -czf "$R/callB.tgz" -C /tmp callB
grep -E "rc=|tests|geometric|lowest|wall time|^(4096x4096x4096|8192x8192x8192|4097x4097x4097) " \
  "$T" | cut -c1-130 | head -60
