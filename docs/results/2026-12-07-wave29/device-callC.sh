#!/usr/bin/env bash
# Device call C (one GPU), prepared in wave 29 and not run (the session's device time was spent
# by refused starts before it could start: README): call B's steps cut to about 300 s, for a
# session with little device time, in order of need, each step archived: the lab (built at the
# call's commit) on wave 26's M <= 16 set with N odd, the windowed rings over 2-8 side by side,
# twice; `bench` on that set; compute-sanitizer (memcheck, synccheck) over skinny where those
# rings run, and the planted-fault control; the GPU tests of the skinny family; Nsight Compute
# (warp stalls, each SM's active cycles) on the 16-row ring over 7's window and dense-B kernels
# and the M <= 16 ring over 4's window and aligned kernels.
set -u
. scripts/device-call-setup.sh callC
tar -xJf carry/labs.tar.xz -C /tmp
lab=/tmp/labs/rowdot_lab_new
arch() { tar -czf "$R/callC.tgz" -C /tmp callC; }
lab_twice lab-m 60 $lab 16x9999x7777 12x8191x8191 16x12345x6789 9x10001x10001 16x16383x16383 \
  13x7777x20001 16x20001x5003 8x9999x7777 5x12001x12001
arch
t0=$SECONDS; timeout 30 carry/hbm_read_lab > "$W/hbm_read_lab.txt" 2>&1
step hbm_read_lab $? $((SECONDS - t0))
grep -E "best|wrong" "$W/hbm_read_lab.txt" | grep -E "^read|wrong" >> "$T"
suite hbm-26m docs/results/2026-12-01-h200-wave26/hbm-wave26m-suite.txt
arch
shapes="16x257x515 12x1001x1003 9x513x2051 16x999x4097 13x777x8193 16x4097x1031 8x257x2049
  5x1001x1003 16x65x16385"
sanitize memcheck 60 $shapes
sanitize synccheck 60 $shapes
sanitize_control
arch
ctest_gpu 120 'Skinny|OddShapes|RoundShapes|EveryConfigurationOfEveryFamily'
arch
s16=SkinnyPipeInILNS_6LayoutE0ELi16ELi16ELi256ELi3ELb0ELi7ELb1ELi1E
ncu_profile s16-dvwin 40 "${s16}Li2ELb1EE" $lab --reps 1 1000x12x100001
arch
ncu_profile m16-window 40 "SkinnyPipeWindowClusterILi16ELi64ELi64ELi4ELi4EE" $lab --reps 1 \
  16x9999x7777
arch
ncu_profile s16-dense 40 "${s16}Li1ELb0EE" $lab --reps 1 1000x12x100000
ncu_profile m16-aligned 40 "SkinnyPipeClusterILi16ELi64ELi64ELi4ELi4EE" $lab --reps 1 \
  16x10000x10000
arch
grep -E "rc=|tests|geometric|SUMMARY|candidates|control" "$T" | cut -c1-160 | head -40
