#!/usr/bin/env bash
# Device call F (one H200), wave 8: the build at carry/commit, with skinny's compute efficiency
# fitted (call E's main job measured 8 skinny candidates at 4096^3 on the H200, 2.307 s there).
# The main job twice (tuning wall per shape), bench-search's default against exhaustive on the
# main job's shapes (within 1%?), compute-sanitizer over every family, every GPU test.
set -u
rm -rf build-h100 && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callF; mkdir -p $W
O=$PWD/build-h100/autotuner/occtune
{ date -u; echo "commit $(cat carry/commit)"; $O --version; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > "$R/env.txt" 2>&1
step() { echo "$1 rc=$2 in $3 s" >> "$R/steps.txt"; }
for i in 1 2; do
  s=$(date +%s)
  timeout 40 $O tune --config configs/default.toml --db /tmp/main$i.db --quiet > $R/main-job$i.txt 2>&1
  step "main-job $i" $? $(( $(date +%s) - s ))
done
families=tiled_dynamic,tiled_static,naive,coarsened,regblocked,pipelined,splitk,skinny,streamk,tma,repacked
s=$(date +%s)
timeout 150 bash scripts/bench-search.sh -b $O -k "$families" -m 4 -r 0 -o $W/bs \
  1024x1024x1024 4096x4096x4096 3001x1000x4097 > "$R/bench-search.out" 2>&1
step bench-search $? $(( $(date +%s) - s ))
s=$(date +%s)
timeout 150 bash scripts/sanitize.sh --occtune $O --out $W/sanitize > $W/sanitize.out 2>&1
step sanitize $? $(( $(date +%s) - s )); cp $W/sanitize/summary.txt $R/sanitize-summary.txt 2>/dev/null
tail -5 $W/sanitize.out >> $R/sanitize-summary.txt
s=$(date +%s)
timeout 200 ctest --test-dir build-h100 -L gpu --output-on-failure -j1 > "$R/ctest-gpu.log" 2>&1
step ctest-gpu $? $(( $(date +%s) - s ))
tar -czf "$R/callF.tgz" -C /tmp callF
cat "$R/env.txt" "$R/steps.txt" "$R/sanitize-summary.txt"
grep -h "shape wall time" $R/main-job1.txt $R/main-job2.txt
grep -h "skinny:" $R/main-job1.txt
grep -E "within|target|NO|yes" "$R/bench-search.out" | tail -12
grep -E "tests passed|tests failed|\(Failed\)|Timeout" "$R/ctest-gpu.log" | tail -8
