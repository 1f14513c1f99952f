#!/usr/bin/env bash
# Device call B (wave 21, one H200): carry/commit plus tma-waves-pdl.diff (the tail's launch as
# the waves' programmatic dependent unless OCCTUNE_TMA_WAVES_PDL=0). Call A put the sk 3
# configurations 0.04 (4096^3) to 0.5 ms (8192^3) behind what whole waves of the data-parallel
# kernel and the tail should take. Every tma candidate exhaustive at 4096^3 and 8192^3 with and
# without the programmatic launch; each kernel's duration under Nsight Compute (serialised);
# the launches' timeline under Nsight Systems where the machine has it.
set -u
. scripts/device-call-setup.sh callB
{ which nsys ncu; ls /usr/local/cuda/bin | grep -i nsys; ls -d /opt/nvidia/nsight-systems* /usr/local/cuda/nsight-systems* 2>/dev/null; } >> $T 2>&1
for pdl in 1 0 1 0; do
  for x in 4096x4096x4096 8192x8192x8192; do
    s=$(date +%s)
    OCCTUNE_TMA_WAVES_PDL=$pdl timeout 100 $O tune --kernel tma --shape $x --strategy exhaustive \
      --wide --samples 40 --db /tmp/ex-$x.db --force > $W/ex-$x-pdl$pdl-$s.txt 2>&1
    step "tune $x pdl $pdl" $? $(( $(date +%s) - s ))
    echo "== tune $x pdl $pdl" >> $T
    grep -E "^(tma|cublas) " $W/ex-$x-pdl$pdl-$s.txt | awk '{print $2, $10, $11}' \
      | sed 's/bm=128,bn=256,bk=32,tm=16,tn=8,wm=64,wn=64,stages=4,fbuf=2,consumer_regs=232,//' >> $T
  done
done
for x in 4096x4096x4096 8192x8192x8192; do
  s=$(date +%s)
  timeout 120 ncu --clock-control none --target-processes all --kernel-name-base mangled \
    -k "regex:tma_entry|tma_waves_entry|tma_streamk_entry|fixup_kernel" --launch-count 48 \
    --metrics gpu__time_duration.sum,sm__cycles_active.avg --csv \
    $O tune --kernel tma --shape $x --strategy exhaustive --samples 3 --db /tmp/ncu-$x.db \
    --force > $W/ncu-$x.csv 2> $W/ncu-$x.err
  step "ncu $x" $? $(( $(date +%s) - s ))
done
if command -v nsys > /dev/null; then
  s=$(date +%s)
  timeout 120 nsys profile --trace=cuda -o $W/timeline --force-overwrite true \
    $O tune --kernel tma --shape 4096x4096x4096 --strategy exhaustive --samples 5 \
    --db /tmp/nsys.db --force > $W/nsys-run.txt 2>&1
  step "nsys" $? $(( $(date +%s) - s ))
  nsys stats --report cuda_gpu_trace --format csv -o $W/trace $W/timeline.nsys-rep > /dev/null 2>&1
  rm -f $W/timeline.nsys-rep $W/timeline.sqlite
fi
tar -czf "$R/callB.tgz" -C /tmp callB
cat "$T" | cut -c1-160 | tail -70
