#!/usr/bin/env bash
# Device call C of wave 33: the build of carry/commit (main's 6eed284 plus the 32-row ring for
# N <= 16 with K split over 64-256 blocks through a workspace, `SkinnyPipeSmallNRowGroupsSplit`:
# M of 17-32 in one row tile, which reads B once) beside main's kernels (carry/base-lib.tar.xz:
# 728538c's libocctune.so, the build calls A and B ran). In order of need: `ctest -L gpu`;
# compute-sanitizer over skinny where the 32-row splits run; wave 33's held-out few-row set and
# the suite; wave 32's few-tile set, new then base.
set -u
. scripts/device-call-setup.sh callC
trap 'grep -E "rc=|geometric|lowest|base lib|tests passed|tests failed|SUMMARY|candidates" "$T" \
  | cut -c1-200' EXIT
base_beside carry/base-lib.tar.xz
ctest_gpu 240
sanitize memcheck 90 20x13x400001 33x12x40004
sanitize synccheck 60 20x13x400001
sanitize_control
arch
rows=docs/results/2026-12-07-wave33/heldout-few-rows-suite.txt
suite_with /tmp/base/autotuner/occtune rows-base $rows
suite rows-new $rows
arch
suite suite-new-1
arch
few=docs/results/2026-12-07-wave32/heldout-few-tiles-suite.txt
suite few-new $few
suite_with /tmp/base/autotuner/occtune few-base $few
arch
