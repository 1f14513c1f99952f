#!/usr/bin/env bash
# Device call A of wave 33: the build of carry/commit (wave 32's branch wave32-more-splits, back
# on main: workspace splits for the 64-column rings for M <= 16 and over 96 and 128 for the
# 16-row ring for N <= 16, skinny_last_of_tile; and wave 33's row tiles of even height in the
# workspace-split ring for N <= 16) beside main's kernels before it (carry/base-lib.tar.xz, a
# build of ecafdff). In order of need: `ctest -L gpu`; compute-sanitizer over skinny where the
# new splits and the even row tiles run; wave 32's held-out few-tile set (1-2-row last tiles),
# wave 33's held-out few-row set and wave 32's M <= 16 set, base then new; the suite twice; wave 26's M <= 16 HBM set, base then new.
set -u
. scripts/device-call-setup.sh callA
trap 'grep -E "rc=|geometric|lowest|base lib|tests passed|tests failed|SUMMARY|candidates" "$T" \
  | cut -c1-200' EXIT
base_beside carry/base-lib.tar.xz
ctest_gpu 240
sanitize memcheck 90 13x1001x20001 16x1024x16384 32x15x200001 40x11x50001 18x6x300001
sanitize synccheck 60 13x1001x20001 40x11x50001
sanitize_control
arch
few=docs/results/2026-12-07-wave32/heldout-few-tiles-suite.txt
suite_with /tmp/base/autotuner/occtune few-base $few
suite few-new $few
rows=docs/results/2026-12-07-wave33/heldout-few-rows-suite.txt
suite_with /tmp/base/autotuner/occtune rows-base $rows
suite rows-new $rows
m16=docs/results/2026-12-07-wave32/heldout-m16-suite.txt
suite_with /tmp/base/autotuner/occtune m16-base $m16
suite m16-new $m16
arch
suite suite-new-1
arch
hbm=docs/results/2026-12-01-h200-wave26/hbm-wave26m-suite.txt
suite_with /tmp/base/autotuner/occtune hbm-26m-base $hbm
suite hbm-26m-new $hbm
arch
suite suite-new-2
arch
