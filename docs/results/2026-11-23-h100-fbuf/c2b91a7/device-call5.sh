#!/usr/bin/env bash
# Second call: sanitizer and bench-search with their files tarred; Nsight Compute on the new
# 4096^3 winner (fbuf 2, ldk 2) and on the same tile with fbuf 1.
set -u
[ -x build-h100/autotuner/occtune ] || { tar -xJf carry/build.tar.xz -C /tmp && rm -rf build-h100 && mv /tmp/pack build-h100; }
R=$OUT/r; mkdir -p "$R"
{ date; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv; echo "commit $(cat carry/commit)"; } > "$R/env.txt"
O=build-h100/autotuner/occtune
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
echo "ncu: $NCU" >> "$R/env.txt"
STALLS=smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__inst_executed.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_pipe_fma.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,gpu__time_duration.sum
for v in "2ELi2E:fbuf2-ldk2" "1ELi0E:fbuf1"; do
  pat=${v%%:*}; name=${v##*:}
  "$NCU" --kernel-name-base mangled -k "regex:RegBlockedILi128ELi256ELi8ELi16ELi8ELi64ELi64ELi0ELi${pat}" -c 1 \
    --section SpeedOfLight --section SchedulerStats --section WarpStateStats --metrics "$STALLS" \
    "$O" tune --shape 4096x4096x4096 --kernel regblocked --db /tmp/ncu-$name.db > "$R/ncu-regblocked-128x256x8-$name.txt" 2>&1
  echo "ncu $name rc=$?" >> "$R/steps.txt"
done
bash scripts/sanitize.sh --occtune "$O" --out /tmp/san > "$R/sanitize-run.log" 2>&1; echo "sanitize rc=$?" >> "$R/steps.txt"
tar -czf "$R/sanitize.tar.gz" -C /tmp san
bash scripts/bench-search.sh -b "$O" -k coarsened,regblocked,pipelined,splitk,tiled_dynamic,tiled_static,naive -m 1 -o /tmp/bs > "$R/bench-search.log" 2>&1; echo "bench-search rc=$?" >> "$R/steps.txt"
tar -czf "$R/bench-search.tar.gz" -C /tmp bs
cat "$R/steps.txt"; grep -E "issue|Issue|Duration|stalled_(dispatch|wait|no_inst|short|barrier)|Warp Cycles Per Issued" "$R"/ncu-*.txt
