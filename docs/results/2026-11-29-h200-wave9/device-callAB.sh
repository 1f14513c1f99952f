#!/usr/bin/env bash
# Device call AB (one H200), session of 2026-11-29: call AA found no difference between the
# builds at 1x4096x4096 and 1x2048x2048 when `bench` ran those two shapes alone (0.917-0.920 in
# both, skinny alone or with split-K), while in the gemv set of calls Y and Z (the same first
# shape, every default family) the new build was 0.89 against 0.92. Here each build runs the
# gemv set (calls Y and Z) with the default families, then the same set with skinny and split-K
# only, then 1x4096x4096 alone with the default families, alternated twice.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callAB; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
unpack() { rm -rf build-h100 /tmp/pack && tar -xJf "$1" -C /tmp && mv /tmp/pack build-h100; }
D=docs/results/2026-11-29-h200-wave9
runs() {  # $1: before or after, $2: round
  s=$(date +%s); n=$1$2-gemv-default
  timeout 60 $O bench --suite $D/gemv-suite.txt > $W/$n.txt 2>&1; step "$n" $? $(( $(date +%s) - s ))
  s=$(date +%s); n=$1$2-gemv-skinny+splitk
  timeout 60 $O bench --suite $D/gemv-suite.txt --kernel skinny --kernel splitk > $W/$n.txt 2>&1
  step "$n" $? $(( $(date +%s) - s ))
  s=$(date +%s); n=$1$2-1x4096-default
  timeout 60 $O bench --shape 1x4096x4096 > $W/$n.txt 2>&1; step "$n" $? $(( $(date +%s) - s ))
}
{ date -u; echo "before: 2099e82; after: $(cat carry/commit)"; nvidia-smi -L; } > "$W/env.txt" 2>&1
for round in 1 2; do
  unpack carry/build-2099e82.tar.xz; runs before $round
  unpack carry/build.tar.xz; runs after $round
done
{ cat "$W/env.txt" "$W/steps.txt"
  for f in $(ls $W/before*.txt $W/after*.txt); do echo "== $f"; grep -E "^(1x|4096x1x|8x|16x|3x|6x|12x|12940x)[0-9x]+ +[0-9]|geometric" $f; done
} > "$T" 2>&1
tar -czf "$R/callAB.tgz" -C /tmp callAB
cat "$T"
