#!/usr/bin/env bash
# Device call C of wave 32, prepared and not run (the session's device time was spent on refused
# starts): for the branch wave32-more-splits, whose two commits are not on main. The build of
# carry/commit (call A's plus the 16-row ring for N <= 16
# over 96 and 128 blocks, and the 64-column rings for M <= 16, aligned and windowed, with K
# split over 6-16 blocks through a workspace; the split hand-over in one skinny_last_of_tile)
# beside main's kernels (carry/base-lib.tar.xz: a build of main). In order of need: `ctest -L gpu`; compute-sanitizer over skinny where the
# new splits run; wave 32's held-out M <= 16 set, base then new; wave 32's held-out few-tile set
# (new); the suite; wave 26's M <= 16 HBM set (N odd), base then new; the suite again.
set -u
. scripts/device-call-setup.sh callC
trap 'grep -E "rc=|geometric|lowest|base lib|tests passed|tests failed|SUMMARY|candidates" "$T" \
  | cut -c1-200' EXIT
base_beside carry/base-lib.tar.xz
ctest_gpu 240
sanitize memcheck 90 13x1001x20001 16x1024x16384 32x15x200001
sanitize synccheck 60 13x1001x20001 32x15x200001
sanitize_control
arch
m16=docs/results/2026-12-07-wave32/heldout-m16-suite.txt
suite_with /tmp/base/autotuner/occtune m16-base $m16
suite m16-new $m16
suite few-wave32-new docs/results/2026-12-07-wave32/heldout-few-tiles-suite.txt
arch
suite suite-new-1
arch
hbm=docs/results/2026-12-01-h200-wave26/hbm-wave26m-suite.txt
suite_with /tmp/base/autotuner/occtune hbm-26m-base $hbm
suite hbm-26m-new $hbm
arch
suite suite-new-2
arch
