#!/usr/bin/env bash
# Device call B of wave 35: the build of carry/commit (the 32-row workspace-split rings on 8
# columns with 256-row slabs over 128 and 256 blocks, registered from call A's lab; A's
# evict-first hint off in the workspace splits' A-window kernels only) beside 23a343d's kernels
# (carry/base-lib.tar.xz, main's before this change): wave 35's held-out N <= 8 few-row set (never
# run), wave 33's few-row and wave 32's few-tile sets, base / new each; `ctest -L gpu` on the new
# build; the suite base / new (nothing there has N <= 8 with few rows: it should not move);
# bench-search (default against exhaustive) on two shapes of the held-out set.
set -u
. scripts/device-call-setup.sh callB
trap summary EXIT
base_beside carry/base-lib.tar.xz
n8=docs/results/2026-12-07-wave35/heldout-n8-rows-suite.txt
rows=docs/results/2026-12-07-wave33/heldout-few-rows-suite.txt
tiles=docs/results/2026-12-07-wave32/heldout-few-tiles-suite.txt
suite_with /tmp/base/autotuner/occtune n8-base $n8
suite n8-new $n8
arch
ctest_gpu 240
arch
suite_with /tmp/base/autotuner/occtune rows-base $rows
suite rows-new $rows
suite_with /tmp/base/autotuner/occtune tiles-base $tiles
suite tiles-new $tiles
arch
bench_search search 90 22x5x7349357 62x6x1368603
arch
suite_with /tmp/base/autotuner/occtune suite-base
suite suite-new
arch
