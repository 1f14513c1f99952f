#!/usr/bin/env bash
# Device call H of wave 31: the review's build (carry/commit; kernels/cluster_policy.cuh builds
# every cluster launch through one cluster_config, skinny's launch no longer through
# launch_with): `ctest -L gpu`, then the suite of shapes past a wave of clusters, which must
# measure as in call A's balanced runs (1.404 / 1.406).
set -u
. scripts/device-call-setup.sh callH
trap 'grep -E "rc=|geometric|tests passed|tests failed" "$T" | cut -c1-200' EXIT
ctest_gpu 200
suite waves docs/results/2026-12-07-wave31/cluster-waves-suite.txt
tar -czf "$R/callH.tgz" --exclude='*.db' -C /tmp callH
