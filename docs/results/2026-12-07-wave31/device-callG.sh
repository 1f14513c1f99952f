#!/usr/bin/env bash
# Device call G of wave 31: main's kernels as landed (the build of carry/commit, a565011's: the
# cluster rule and the 16-row ring over every cluster size) alone: the suite twice (the issue's
# two runs of one build) and wave 26's two HBM sets once.
set -u
. scripts/device-call-setup.sh callG
trap 'grep -E "rc=|geometric|lowest" "$T" | cut -c1-200' EXIT
suite suite-1
suite suite-2
for set in m ""; do
  suite hbm-26$set docs/results/2026-12-01-h200-wave26/hbm-wave26$set-suite.txt
done
tar -czf "$R/callG.tgz" --exclude='*.db' -C /tmp callG
