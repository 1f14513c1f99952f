#!/usr/bin/env bash
# Device call B of wave 32: the same build as call A (carry/commit) beside main's kernels
# (carry/base-lib.tar.xz): the suite, new twice (the two runs of one build) and base
# once; wave 26's HBM set for N <= 16 and wave 31's held-out skinny set, base then new; wave 32's
# held-out M <= 16 set (the windowed rings' status; the change does not reach them) once.
set -u
. scripts/device-call-setup.sh callB
trap 'grep -E "rc=|geometric|lowest|base lib" "$T" | cut -c1-200' EXIT
arch() { tar -czf "$R/callB.tgz" --exclude='*.db' -C /tmp callB; }
base_beside carry/base-lib.tar.xz
suite suite-new-1
suite suite-new-2
suite_with /tmp/base/autotuner/occtune suite-base
arch
suite_with /tmp/base/autotuner/occtune hbm-26-base docs/results/2026-12-01-h200-wave26/hbm-wave26-suite.txt
suite hbm-26-new docs/results/2026-12-01-h200-wave26/hbm-wave26-suite.txt
suite_with /tmp/base/autotuner/occtune held-base docs/results/2026-12-07-wave31/heldout-skinny-suite.txt
suite held-new docs/results/2026-12-07-wave31/heldout-skinny-suite.txt
suite heldout-m16 docs/results/2026-12-07-wave32/heldout-m16-suite.txt
arch
