#!/usr/bin/env bash
# Device call AA (one H200), session of 2026-11-29: why the skinny winner at 1x4096x4096 and
# 1x2048x2048 took ~0.7 us longer against cuBLAS in the builds of calls Y and Z than in 2099e82,
# though its SASS is identical in both (cuobjdump). Is it the process's earlier programmatic
# launches (split-K's reductions, raced on the same stream before the winner is measured)?
# Each build: `occtune bench` on the two shapes with the skinny family alone (no split-K
# launch in the process) and with skinny and split-K, alternated twice; Nsight Compute times
# the skinny kernel and its ticket memset in each build.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callAA; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
unpack() { rm -rf build-h100 /tmp/pack && tar -xJf "$1" -C /tmp && mv /tmp/pack build-h100; }
runs() {  # $1: before or after, $2: round
  for fams in "skinny" "skinny splitk"; do
    s=$(date +%s); n=$1$2-$(echo $fams | tr ' ' '+')
    args=(); for f in $fams; do args+=(--kernel $f); done
    timeout 60 $O bench --shape 1x4096x4096 --shape 1x2048x2048 "${args[@]}" > $W/$n.txt 2>&1
    step "$n" $? $(( $(date +%s) - s ))
  done
}
prof() {  # $1: before or after
  s=$(date +%s)
  timeout 60 ncu --clock-control none --target-processes all --launch-skip 20 --launch-count 12 \
    --metrics gpu__time_duration.sum $O bench --shape 1x4096x4096 --kernel skinny --quiet > $W/ncu-$1.txt 2>&1
  step "ncu $1" $? $(( $(date +%s) - s ))
}
{ date -u; echo "before: 2099e82; after: $(cat carry/commit)"; nvidia-smi -L; } > "$W/env.txt" 2>&1
for round in 1 2; do
  unpack carry/build-2099e82.tar.xz; runs before $round; [ $round = 1 ] && prof before
  unpack carry/build.tar.xz; runs after $round; [ $round = 1 ] && prof after
done
{ cat "$W/env.txt" "$W/steps.txt"
  for f in $(ls $W/before*.txt $W/after*.txt); do echo "== $f"; grep -E "^ *1x|geometric" $f; done
  for f in $W/ncu-*.txt; do echo "== $f"; grep -E "^  [a-zA-Z_].*\(|gpu__time_duration" $f | sed -E 's/\(GemmArgs.*//' | head -30; done
} > "$T" 2>&1
tar -czf "$R/callAA.tgz" -C /tmp callAA
cat "$T"
