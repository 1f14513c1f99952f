#!/usr/bin/env bash
# Device call A of wave 30 (one GPU): wave 29's device-callB.sh (never run: every start that
# session was refused), reordered so that the whole suite's two runs on the H100 come right after
# `ctest -L gpu` (the issue asks for two runs of the current build), then the rest in B's order:
# compute-sanitizer where the windowed rings for M <= 16 run, the lab on M <= 16 with N odd over
# more splits, --one-per-sm at 1000x12x100000/100001, the 1 GiB read, seven Nsight Compute
# profiles, and the two HBM sets of wave 26. Build: carry/commit (kernels as at 1d47f86).
set -u
. scripts/device-call-setup.sh callA
tar -xJf carry/labs.tar.xz -C /tmp
lab=/tmp/labs/rowdot_lab_new
arch() { tar -czf "$R/callA.tgz" -C /tmp callA; }
# In order of need, archived between steps in case the limit cuts the call.
ctest_gpu 230
suite suite-1
suite suite-2
arch
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
suite hbm-26 docs/results/2026-12-01-h200-wave26/hbm-wave26-suite.txt
arch
grep -E "rc=|tests|geometric|lowest|^read|SUMMARY|candidates|control|^ncu .*(duration|cycles_active)" \
  "$T" | cut -c1-160 | head -80
