#!/usr/bin/env bash
# Device call G (wave 20, one H200): 5eaca10 plus tma-variants-G.diff, three more stream-K
# hybrids of the grouped tile: 240/24 (more consumer registers) in 8- and 16-step groups, and
# 8-step groups with columns outside (call C's Nsight Compute put the hybrid's FFMAs closer to
# their fragments' loads than the data-parallel kernel's). Every tma candidate exhaustive at
# four shapes, 4096^3 twice.
set -u
. scripts/device-call-setup.sh callG
for x in 4096x4096x4096 1536x1536x4096 5000x5000x5000 4096x4096x4096 3000x1000x4096; do
  s=$(date +%s)
  timeout 120 $O tune --kernel tma --shape $x --strategy exhaustive --wide --samples 40 \
    --db /tmp/ex-$x.db --force > $W/ex-$x-$s.txt 2>&1
  step "tune $x" $? $(( $(date +%s) - s ))
done
tar -czf "$R/callG.tgz" -C /tmp callG
cat "$T"
