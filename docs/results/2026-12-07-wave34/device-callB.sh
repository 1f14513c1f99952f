#!/usr/bin/env bash
# Device call B of wave 34: lab/rowdot_lab.cu (built here with workspace splits: carry/labs.tar.xz)
# on few rows of C with N <= 16 over a long K: the registered workspace-split rings (16 rows over
# 64-128, 32 rows over 64-256) beside 256-row slabs at 32 rows (2 or 3 stages) and 8-column tiles
# for N <= 8, each with its dense-B and A-window kernels where they apply; twice. The shapes:
# wave 33's held-out few-row set, five of wave 32's few-tile set, and bench-search's two few-row
# shapes of call A.
set -u
. scripts/device-call-setup.sh callB
trap summary EXIT
tar -xJf carry/labs.tar.xz -C /tmp
shapes="$(grep -v '^#' docs/results/2026-12-07-wave33/heldout-few-rows-suite.txt | awk '{print $1}')
  18x6x5666845 17x12x5983159 43x13x4031207 32x15x4634845 45x7x1846663 111x15x484653
  87x16x1010358"
lab_twice ws 200 /tmp/labs/rowdot_lab --reps 15 --only "ws " $shapes
arch
