#!/usr/bin/env bash
# Device call T (one H200), session of 2026-11-28 (night): where our small tiles lose the
# cycles cuBLAS's do not. The build of call S (carry/build.tar.xz, carry/commit; kernels as at
# HEAD). Nsight Compute (full set plus the stall reasons, raw page) on: the stream-K fbuf-2
# 64x128x16 tile that wins 1025^3, the 64x64 8x4 split-K tile there, cuBLAS's kernel there,
# the 64x128x16 pipelined tile at 1024^3 (one block per SM), and the tma kernel and cuBLAS at
# 4096^3. Everything goes into callT.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callT; mkdir -p $W; T=$R/results.txt
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
rm -rf build-h100 /tmp/pack && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build-h100
{ date -u; echo "build: $(cat carry/commit)"; nvidia-smi -L; $O --version; } > "$W/env.txt" 2>&1
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_op_ldgsts.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__cycles_active.avg,smsp__issue_active.avg.pct_of_peak_sustained_active'
prof() {  # name, kernel regex, skip, command...
  local n=$1 k=$2 sk=$3; shift 3
  local s=$(date +%s)
  timeout 120 ncu --clock-control none --target-processes all --kernel-name-base mangled -k "regex:$k" \
    --launch-skip $sk --launch-count 1 --set full --metrics "$M" --print-details all "$@" > $W/ncu-$n.txt 2>&1
  step "ncu $n" $? $(( $(date +%s) - s ))
  s=$(date +%s)
  timeout 120 ncu --clock-control none --target-processes all --kernel-name-base mangled -k "regex:$k" \
    --launch-skip $sk --launch-count 1 --metrics "$M" --page raw "$@" > $W/raw-$n.txt 2>&1
  step "raw $n" $? $(( $(date +%s) - s ))
}
TUNE="tune --strategy exhaustive --db /tmp/ncu.db --quiet --no-isolation"
prof skfb1025 'gemm_entry.*StreamKFbILi64ELi128ELi16E' 2 $O $TUNE --shape 1025x1025x1025 --kernel streamk
prof sk64x64-1025 'gemm_entry.*SplitKILi64ELi64ELi8ELi8ELi4ELi32ELi32ELi3ELi1ELi2ELi0E' 2 $O $TUNE --shape 1025x1025x1025 --kernel splitk
prof cublas1025 'xmma|cutlass|sgemm' 4 $O bench --shape 1025x1025x1025 --kernel streamk --quiet
prof pipefb1024 'gemm_entry.*PipelinedFbILi64ELi128ELi16E' 2 $O $TUNE --shape 1024x1024x1024 --kernel pipelined
prof tma4096 'tma_entry' 2 $O $TUNE --shape 4096x4096x4096 --kernel tma
prof cublas4096 'xmma|cutlass|sgemm' 4 $O bench --shape 4096x4096x4096 --kernel tma --quiet
{ cat $W/env.txt $W/steps.txt
  for f in $W/ncu-*.txt; do echo "== $f"; grep -E "^  [a-z_ ]*void|^  [A-Za-z_].*\(.*\)x\(|Duration|Elapsed Cycles|SM Active|Compute \(SM\)|Memory Throughput|L1/TEX Cache|L2 Cache Throughput|Issued Warp|No Eligible|Eligible Warps|Active Warps Per|Warp Cycles Per Issued|Registers Per|Achieved Occupancy|Executed Ipc|Issue Slots Busy|Shared.*Bank|Stall" $f | head -40; done
  for f in $W/raw-*.txt; do echo "== $f"; grep -E "stalled|inst_executed|wavefronts|bank_conflicts|pct_of_peak|cycles_active" $f | awk '{v=$NF; if (v+0 >= 0.05 || $0 !~ /stalled/) print}' | head -60; done; } > "$T" 2>&1
tar -czf "$R/callT.tgz" -C /tmp callT
head -c 12000 "$T"
