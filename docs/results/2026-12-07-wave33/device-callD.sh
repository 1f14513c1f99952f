#!/usr/bin/env bash
# Device call D of wave 33: call C cut to what the session's device time left can hold (call C
# got no machine twice): for the build of carry/commit (the 32-row ring for N <= 16 over 64-256
# blocks through a workspace) beside 728538c's kernels, `ctest -L gpu`, then wave 33's held-out
# few-row set base then new, then the suite.
set -u
. scripts/device-call-setup.sh callD
trap 'grep -E "rc=|geometric|lowest|base lib|tests passed|tests failed|SUMMARY|candidates" "$T" \
  | cut -c1-200' EXIT
base_beside carry/base-lib.tar.xz
ctest_gpu 240
arch
rows=docs/results/2026-12-07-wave33/heldout-few-rows-suite.txt
suite_with /tmp/base/autotuner/occtune rows-base $rows
suite rows-new $rows
arch
suite suite-new-1
arch
