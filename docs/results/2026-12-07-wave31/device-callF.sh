#!/usr/bin/env bash
# Device call F of wave 31: the build of carry/commit registers the 16-row ring for N <= 16 over
# 3, 5, 6 and 8 (call E's lab) beside main's (carry/base-lib.tar.xz: the cluster rule's build,
# 99d6859, as run in calls A and D). In order of need: `ctest -L gpu`; compute-sanitizer over
# skinny at shapes of a few tiles; the held-out few-tile set (heldout-few-tiles-suite.txt),
# base then new, twice; call D's held-out set and the suite, base then new.
set -u
. scripts/device-call-setup.sh callF
trap 'grep -E "rc=|geometric|lowest|base lib|tests passed|tests failed|SUMMARY" "$T" \
  | cut -c1-200' EXIT
arch() { tar -czf "$R/callF.tgz" --exclude='*.db' -C /tmp callF; }
base_beside carry/base-lib.tar.xz
ctest_gpu 230
sanitize memcheck 120 603x13x4097 350x16x3001 473x13x2050 128x9x5003
sanitize synccheck 120 603x13x4097 350x16x3001
sanitize_control
arch
few=docs/results/2026-12-07-wave31/heldout-few-tiles-suite.txt
for run in 1 2; do
  suite_with /tmp/base/autotuner/occtune few-base-$run $few
  suite few-new-$run $few
done
arch
suite_with /tmp/base/autotuner/occtune held-base docs/results/2026-12-07-wave31/heldout-skinny-suite.txt
suite held-new docs/results/2026-12-07-wave31/heldout-skinny-suite.txt
suite_with /tmp/base/autotuner/occtune suite-base
suite suite-new
arch
