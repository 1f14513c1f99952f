#!/usr/bin/env bash
# Device call A of wave 35 (wave 34's calls B and C together, which got no machine): for the
# build of carry/commit (branch wave34-ws-no-evict-first: the workspace-split rings for N <= 16
# copy A without the L2 evict-first hint, kAEvictFirst in kernels/skinny_pipe.cuh) beside
# 23a343d's kernels (carry/base-lib.tar.xz, main's kernels: every ring for N <= 16 marks A's
# lines evict-first): wave 33's held-out few-row set base / new, `ctest -L gpu` on the new build
# (bench's A+B column's end-to-end assertion among them, never run on a GPU), wave 32's held-out
# few-tile set base / new, lab/rowdot_lab.cu's workspace-split rings (built from the branch's
# headers: carry/labs.tar.xz) twice, the few-row set again.
set -u
. scripts/device-call-setup.sh callA
trap summary EXIT
base_beside carry/base-lib.tar.xz
rows=docs/results/2026-12-07-wave33/heldout-few-rows-suite.txt
tiles=docs/results/2026-12-07-wave32/heldout-few-tiles-suite.txt
suite_with /tmp/base/autotuner/occtune rows-base-1 $rows
suite rows-new-1 $rows
arch
ctest_gpu 200
arch
suite_with /tmp/base/autotuner/occtune tiles-base $tiles
suite tiles-new $tiles
arch
tar -xJf carry/labs.tar.xz -C /tmp
shapes="$(grep -v '^#' $rows | awk '{print $1}')
  18x6x5666845 17x12x5983159 43x13x4031207 32x15x4634845 45x7x1846663 111x15x484653
  87x16x1010358"
lab_twice ws 90 /tmp/labs/rowdot_lab --reps 15 --only "ws " $shapes
arch
suite_with /tmp/base/autotuner/occtune rows-base-2 $rows
suite rows-new-2 $rows
arch
