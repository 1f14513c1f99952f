#!/usr/bin/env bash
# Device call A of wave 31 (wave 30's call C, prepared then and not run; its branch did not
# survive, so wave 31 wrote it again as branch wave31-cluster-policy): the build of carry/commit
# launches a skinny cluster with cudaClusterSchedulingPolicyLoadBalancing where that fits its
# clusters in fewer waves (kernels/cluster_waves.hpp, kernels/cluster_policy.cuh) and registers
# the 16-row ring for N <= 16 over 4; carry/base-lib.tar.xz is main's libocctune.so (418e176's
# kernels), run from /tmp/base beside it. In order of need: `ctest -L gpu` (with the new
# test_cluster_policy); compute-sanitizer over skinny where the balanced launches run (M = 1000
# with N <= 16, N near 3900 with M <= 16); the suite of shapes past a wave
# (cluster-waves-suite.txt), base then balanced, twice; the lab's --occupancy --policy at three
# of them; the whole suite and wave 26's HBM sets, base then balanced.
set -u
. scripts/device-call-setup.sh callA
tar -xJf carry/labs.tar.xz -C /tmp
lab=/tmp/labs/rowdot_lab_new
arch() { tar -czf "$R/callA.tgz" --exclude='*.db' --exclude='*.ncu-rep' -C /tmp callA; }
trap 'grep -E "rc=|geometric|lowest|base lib|tests passed|tests failed|SUMMARY" "$T" \
  | cut -c1-200' EXIT
base_beside carry/base-lib.tar.xz
ctest_gpu 230
sanitize memcheck 150 1000x12x4097 1000x16x2049 1000x5x3001 1004x12x1003 16x3900x1001 \
  12x3901x2051
sanitize synccheck 150 1000x12x4097 1000x16x2049 16x3900x1001
sanitize_control
arch
waves=docs/results/2026-12-07-wave31/cluster-waves-suite.txt
for run in 1 2; do
  suite_with /tmp/base/autotuner/occtune waves-base-$run $waves
  suite waves-balanced-$run $waves
done
arch
lab_twice lab-n 60 $lab --occupancy --policy --only "c16 r" 1000x12x100000 1000x12x100001 \
  2000x12x50000
arch
suite_with /tmp/base/autotuner/occtune suite-base-1
suite suite-balanced-1
arch
for set in m ""; do
  f=docs/results/2026-12-01-h200-wave26/hbm-wave26$set-suite.txt
  suite_with /tmp/base/autotuner/occtune hbm-26$set-base "$f"
  suite hbm-26$set-balanced "$f"
done
arch
suite_with /tmp/base/autotuner/occtune suite-base-2
suite suite-balanced-2
arch
