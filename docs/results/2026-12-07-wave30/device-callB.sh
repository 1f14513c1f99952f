#!/usr/bin/env bash
# Device call B of wave 30 (one GPU; the H100 asked for): the cluster scheduling policy. Call A's
# Nsight Compute pages (H200) had the SMs' mean active cycles at 55-88% of the busiest SM's on
# the cluster rings, the split over 4 at 1000x12x100000 at 55% (about half the SMs held two of
# its 128 blocks, the rest none). The build (carry/build.tar.xz, carry/commit) launches every
# skinny cluster variant with cudaClusterSchedulingPolicySpread; carry/base-lib.tar.xz is the
# libocctune.so of b1d43fa (the default policy), which /tmp/base runs beside it. In order of
# need: the lab (lab/rowdot_lab.cu: --policy launches each cluster configuration also with the
# Spread and the LoadBalancing policy, --occupancy prints its waves) on the M <= 16 set with N
# odd and at 1000x12x100000/100001; the whole suite, base then spread; the HBM sets of wave 26
# the same way; `ctest -L gpu` on the spread build; the suite again, base then spread; Nsight
# Compute's per-SM active cycles (every SM's value) of the M <= 16 ring over 4 and the 32-row
# ring's dense-B kernel over 4.
set -u
. scripts/device-call-setup.sh callB
tar -xJf carry/labs.tar.xz -C /tmp
lab=/tmp/labs/rowdot_lab_new
# Call A's archive came back too large (16 MiB a file): the bench databases and Nsight Compute's
# reports stay behind; their text and the raw pages come back.
arch() { tar -czf "$R/callB.tgz" --exclude='*.db' --exclude='*.ncu-rep' -C /tmp callB; }
# The base: occtune beside a lib folder whose libocctune.so is b1d43fa's (occtune's RPATH starts
# with $ORIGIN/../lib).
rm -rf /tmp/base && mkdir -p /tmp/base/autotuner /tmp/base/lib
cp -a build-h100/autotuner/occtune /tmp/base/autotuner/
(cd build-h100/lib && cp -a $(ls | grep -v '\.a$') /tmp/base/lib/)
tar -xJf carry/base-lib.tar.xz -C /tmp/base/lib
echo "base lib: $(md5sum < /tmp/base/lib/libocctune.so.0.1.0 | cut -c1-12)," \
  "spread lib: $(md5sum < build-h100/lib/libocctune.so.0.1.0 | cut -c1-12);" \
  "base occtune loads $(ldd /tmp/base/autotuner/occtune | grep -o '/[^ ]*libocctune[^ ]*')" >> "$T"
# SHORT=1 (little device time left): the lab once, the HBM set for N <= 16 and the second suite
# pair left out.
short=${SHORT:-0}
trap 'grep -E "rc=|geometric|lowest|base lib|tests passed|tests failed" "$T" | cut -c1-200' EXIT
lab_runs() { if [ "$short" = 1 ]; then lab_once "$@"; else lab_twice "$@"; fi; }
lab_once() {
  local name=$1 limit=$2 lab=$3 t0=$SECONDS; shift 3
  timeout "$limit" "$lab" "$@" > "$W/$name-1.txt" 2>&1
  step "$name run 1" $? $((SECONDS - t0))
  grep -h WRONG "$W/$name-1.txt" >> "$T"
}
lab_runs lab-m 60 $lab --occupancy --policy 16x9999x7777 12x8191x8191 16x12345x6789 \
  9x10001x10001 16x16383x16383 13x7777x20001 16x20001x5003 8x9999x7777 5x12001x12001
lab_runs lab-n 60 $lab --occupancy --policy --only "c16 r" 1000x12x100000 1000x12x100001
grep -hE "^[0-9]+x|^  (m?ring|mwin)|occupancy .*x4" "$W"/lab-m-1.txt "$W"/lab-n-1.txt \
  | sed -E 's/ +/ /g' >> "$T"
arch
# `suite_with BIN NAME [FILE]`: suite() with occtune BIN.
suite_with() { local keep=$O; O=$1; shift; suite "$@"; O=$keep; }
suite_with /tmp/base/autotuner/occtune suite-base-1
suite suite-spread-1
arch
sets=(m ""); [ "$short" = 1 ] && sets=(m)
for set in "${sets[@]}"; do
  f=docs/results/2026-12-01-h200-wave26/hbm-wave26$set-suite.txt
  suite_with /tmp/base/autotuner/occtune hbm-26$set-base "$f"
  suite hbm-26$set-spread "$f"
done
arch
ctest_gpu 200
arch
[ "$short" = 1 ] && exit 0
suite_with /tmp/base/autotuner/occtune suite-base-2
suite suite-spread-2
arch
# Every SM's active cycles (one value an SM) of one launch, with the default policy (the lab).
per_sm() {
  local name=$1 regex=$2 t0=$SECONDS; shift 2
  timeout 40 ncu --clock-control none --kernel-name-base mangled -k "regex:$regex" \
    --launch-count 1 --metrics sm__cycles_active.sum,sm__cycles_active.max \
    --print-metric-instances values --csv --page raw "$@" > "$W/$name-per-sm.csv" 2>&1
  step "ncu per-sm $name" $? $((SECONDS - t0))
  tail -3 "$W/$name-per-sm.csv" | cut -c1-1500 >> "$T"
}
s32=SkinnyPipeInILNS_6LayoutE0ELi32ELi16ELi128ELi4ELb0ELi
per_sm m16-aligned "SkinnyPipeClusterILi16ELi64ELi64ELi4ELi4EE" $lab --reps 1 16x10000x10000
per_sm s32-dense-x4 "${s32}4ELb1ELi2ELi1ELb0EE" $lab --reps 1 1000x12x100000
arch
