#!/usr/bin/env bash
# Device call B (one GPU), prepared in wave 29 and not run: every start that session was refused
# until its device time was spent (README). For the next session's first call, on the build of
# carry/commit (main at that call; 1d47f86's kernels, whose last two changes, the 32-row rings
# without DenseWindowVec and dense_vec_applies, have not run on a GPU as a build) and the lab
# (lab/rowdot_lab.cu) built at the same commit, in order of need: `ctest -L gpu`;
# compute-sanitizer where the windowed rings for M <= 16 run; the lab on wave 26's M <= 16 set
# with N odd, with those rings split over 5-8 (16 rows) and 3, 6, 8 (8 rows) beside the
# registered 2-4; the lab's --one-per-sm on the 16- and 32-row rings for N <= 16 at
# 1000x12x100000 and 1000x12x100001 (are the splits over 4 and 8 slow there because two blocks
# share an SM? PERFORMANCE.md, "Next steps"); Nsight Compute (warp stall reasons, each SM's
# active cycles: min, mean, max) on the 16-row ring over 7's window and dense-B kernels, the
# 32-row ring over 7's DenseWindow, the 32-row ring's dense-B kernel over 3 and over 4 at
# 1000x12x100000, and the M <= 16 ring over 4's window and aligned kernels; the HBM set for
# M <= 16 with N odd; the whole suite twice (the issue asks for two runs on the H100); wave
# 26's HBM set with B's rows misaligned.
set -u
. scripts/device-call-setup.sh callB
tar -xJf carry/labs.tar.xz -C /tmp
lab=/tmp/labs/rowdot_lab_new
arch() { tar -czf "$R/callB.tgz" -C /tmp callB; }
# In order of need, archived between steps in case the limit cuts the call.
ctest_gpu 230
# compute-sanitizer over skinny where the windowed rings for M <= 16 run (N odd, M 9-16 and 5-8),
# and the planted-fault control.
shapes="16x257x515 12x1001x1003 9x513x2051 16x999x4097 13x777x8193 16x4097x1031 8x257x2049
  5x1001x1003 16x65x16385"
sanitize memcheck 150 $shapes
sanitize synccheck 150 $shapes
sanitize_control
arch
# The lab on wave 26's M <= 16 set with N odd, the windowed rings for M <= 16 over 5-8 as well
# as 2-4 (16 rows) and over 3, 6 and 8 (8 rows), twice.
lab_twice lab-m 100 $lab 16x9999x7777 12x8191x8191 16x12345x6789 9x10001x10001 \
  16x16383x16383 13x7777x20001 16x20001x5003 8x9999x7777 5x12001x12001
# The splits over 4 and 8 at 1000x12x100000 (wave 28's lab: 192-195 us against 152-154 over 2,
# 3 and 7): the 16-, 32- and 64-row rings for N <= 16 also with one block an SM, twice.
lab_twice lab-1sm 60 $lab --one-per-sm --only "c16 r" 1000x12x100000 1000x12x100001
grep -hE "^[0-9]+x|S(16|32) c16 r(256|128) s[34]( x[0-9])? (dense|dvwin|dwin)" "$W"/lab-1sm-*.txt \
  | sed -E 's/ +/ /g' >> "$T"
arch
t0=$SECONDS; timeout 60 carry/hbm_read_lab > "$W/hbm_read_lab.txt" 2>&1
step hbm_read_lab $? $((SECONDS - t0))
grep -E "best|wrong" "$W/hbm_read_lab.txt" | grep -E "^read|wrong" >> "$T"
s16=SkinnyPipeInILNS_6LayoutE0ELi16ELi16ELi256ELi3ELb0ELi7ELb1ELi1E
s32=SkinnyPipeInILNS_6LayoutE0ELi32ELi16ELi128ELi4ELb0ELi
ncu_profile s16-dvwin 120 "${s16}Li2ELb1EE" $lab --reps 1 1000x12x100001
ncu_profile s16-dense 120 "${s16}Li1ELb0EE" $lab --reps 1 1000x12x100000
ncu_profile s32-dwin 120 "${s32}7ELb1ELi2ELi1ELb1EE" $lab --reps 1 1000x12x100001
ncu_profile s32-dense-x3 120 "${s32}3ELb1ELi2ELi1ELb0EE" $lab --reps 1 1000x12x100000
ncu_profile s32-dense-x4 120 "${s32}4ELb1ELi2ELi1ELb0EE" $lab --reps 1 1000x12x100000
ncu_profile m16-window 120 "SkinnyPipeWindowClusterILi16ELi64ELi64ELi4ELi4EE" $lab --reps 1 \
  16x9999x7777
ncu_profile m16-aligned 120 "SkinnyPipeClusterILi16ELi64ELi64ELi4ELi4EE" $lab --reps 1 \
  16x10000x10000
arch
suite hbm-26m docs/results/2026-12-01-h200-wave26/hbm-wave26m-suite.txt
suite suite-1
arch
suite suite-2
suite hbm-26 docs/results/2026-12-01-h200-wave26/hbm-wave26-suite.txt
arch
grep -E "rc=|tests|geometric|lowest|^read|SUMMARY|candidates|control|^ncu .*(duration|cycles_active)" \
  "$T" | cut -c1-160 | head -80
