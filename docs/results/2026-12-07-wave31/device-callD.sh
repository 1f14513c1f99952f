#!/usr/bin/env bash
# Device call D of wave 31: the cluster rule (the build of carry/commit) against main's kernels
# (carry/base-lib.tar.xz, beside it in /tmp/base) on twenty held-out shapes with M or N <= 16
# (heldout-skinny-suite.txt, drawn at random, never run before), base then balanced, twice.
set -u
. scripts/device-call-setup.sh callD
trap 'grep -E "rc=|geometric|lowest|base lib" "$T" | cut -c1-200' EXIT
base_beside carry/base-lib.tar.xz
held=docs/results/2026-12-07-wave31/heldout-skinny-suite.txt
for run in 1 2; do
  suite_with /tmp/base/autotuner/occtune held-base-$run $held
  suite held-balanced-$run $held
done
tar -czf "$R/callD.tgz" --exclude='*.db' -C /tmp callD
