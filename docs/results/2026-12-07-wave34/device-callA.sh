#!/usr/bin/env bash
# Device call A of wave 34: for the build of carry/commit (main's HEAD of wave 33 and the
# session's start), `ctest -L gpu` (the workspace-refusal test in its wave 33 review form had not
# run on a GPU), bench-search over bench's default families on six held-out skinny shapes (the
# default strategy's tuning time and its gap to exhaustive since waves 32-33's split variants),
# and wave 32's held-out few-tile set (not run on the 32-row ring's splits).
set -u
. scripts/device-call-setup.sh callA
trap summary EXIT
ctest_gpu 240
arch
bench_search search 270 $(grep -v '^#' docs/results/2026-12-07-wave34/heldout-skinny-search.txt)
arch
suite tiles-new docs/results/2026-12-07-wave32/heldout-few-tiles-suite.txt
arch
