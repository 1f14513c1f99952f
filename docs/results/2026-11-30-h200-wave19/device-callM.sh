#!/usr/bin/env bash
# Device call M (one H200): call L's Nsight Compute runs with the SM clock left alone
# (--clock-control none: 1980 MHz, as the timed runs), and the stall breakdown.
set -u
CLOCKS=none bash docs/results/2026-11-30-h200-wave19/device-callL.sh > /dev/null
grep -E "===|rc=|SM Frequency|Duration|DRAM Throughput|Issued Warp|No Eligible|Eligible Warps|Warp Cycles Per Issued|Stall [A-Z]|stall" $OUT/lab.txt | head -60
