#!/usr/bin/env bash
# Device call AD (one H200), session of 2026-11-29: the 53-shape suite twice more with the
# session's final build (carry/build.tar.xz, carry/commit; the build of call Z), on whichever
# H200 the call gets: call Z's suite runs put 1x4096x4096 at 0.896 / 0.891, while calls AA-AC
# measured it at 0.911-0.925 with the same build. Everything goes into callAD.tgz and
# results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callAD; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L; $O --version; } > "$W/env.txt" 2>&1
for i in 1 2; do
  s=$(date +%s)
  BENCH_TIMEOUT=80 timeout 100 bash scripts/bench-suite.sh -b $O -o $W/suite$i > "$W/suite$i.out" 2>&1
  step "suite $i" $? $(( $(date +%s) - s ))
done
{ cat "$W/env.txt" "$W/steps.txt"
  for r in suite1 suite2; do echo "== $r"; cut -c1-150 $W/$r/*/summary.txt; done; } > "$T" 2>&1
tar -czf "$R/callAD.tgz" -C /tmp callAD
grep -E "rc=|geometric|self-check|UUID" "$T"
