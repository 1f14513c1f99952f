#!/usr/bin/env bash
# Device call AC (one H200), session of 2026-11-29: in calls Y and Z the gemv set, run through
# scripts/bench-suite.sh right after the split-K set, put 1x4096x4096 at 0.89 with the new
# build against 0.92 with 2099e82; in call AB, `occtune bench --suite` on the same set with the
# same families gave 0.915-0.922 with both. Here, per build and alternated twice: the gemv set
# through bench-suite.sh alone, then the split-K set and the gemv set through it as in Y and Z.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callAC; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
unpack() { rm -rf build-h100 /tmp/pack && tar -xJf "$1" -C /tmp && mv /tmp/pack build-h100; }
D=docs/results/2026-11-29-h200-wave9
runs() {  # $1: before or after, $2: round
  for set in gemv-suite splitk-suite gemv-suite; do
    s=$(date +%s); n=$1$2-$set-$(date +%s)
    BENCH_TIMEOUT=60 timeout 80 bash scripts/bench-suite.sh -b $O -s $D/$set.txt -o $W/$n > "$W/$n.out" 2>&1
    step "$n" $? $(( $(date +%s) - s ))
  done
}
{ date -u; echo "before: 2099e82; after: $(cat carry/commit)"; nvidia-smi -L; } > "$W/env.txt" 2>&1
for round in 1 2; do
  unpack carry/build-2099e82.tar.xz; runs before $round
  unpack carry/build.tar.xz; runs after $round
done
{ cat "$W/env.txt" "$W/steps.txt"
  for r in $(cd $W && ls -d before* after* | grep -v '\.out$'); do
    echo "== $r"; cut -c1-100 $W/$r/*/summary.txt | grep -E "^(1x4096|1x2048|4096x1x|3x5000|geometric)"; done
} > "$T" 2>&1
tar -czf "$R/callAC.tgz" -C /tmp callAC
cat "$T"
