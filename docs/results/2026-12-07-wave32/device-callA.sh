#!/usr/bin/env bash
# Device call A of wave 32: the build of carry/commit (the 16-row ring for N <= 16 with K split
# over 8-64 blocks through a workspace, SkinnyPipeSmallNSplit; one launch_config for every
# cudaLaunchKernelEx launch) beside main's kernels (carry/base-lib.tar.xz: 1a24484's library).
# In order of need: `ctest -L gpu`; compute-sanitizer over skinny at shapes of a few tiles with
# a long K (the new splits run there: B dense or not, A's rows aligned or not); wave 31's
# held-out few-tile set and wave 32's (heldout-few-tiles-suite.txt), base then new, twice.
set -u
. scripts/device-call-setup.sh callA
trap 'grep -E "rc=|geometric|lowest|base lib|tests passed|tests failed|SUMMARY|candidates" "$T" \
  | cut -c1-200' EXIT
arch() { tar -czf "$R/callA.tgz" --exclude='*.db' -C /tmp callA; }
base_beside carry/base-lib.tar.xz
ctest_gpu 240
sanitize memcheck 150 40x11x50001 100x16x30000 33x12x40004 70x9x20003
sanitize synccheck 100 40x11x50001 33x12x40004
sanitize_control
arch
for few in docs/results/2026-12-07-wave31/heldout-few-tiles-suite.txt \
           docs/results/2026-12-07-wave32/heldout-few-tiles-suite.txt; do
  tag=$(basename "$(dirname "$few")" | sed -E 's/.*(wave[0-9]+)$/\1/')
  for run in 1 2; do
    suite_with /tmp/base/autotuner/occtune few-$tag-base-$run "$few"
    suite few-$tag-new-$run "$few"
  done
  arch
done
