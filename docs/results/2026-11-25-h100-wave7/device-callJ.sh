#!/usr/bin/env bash
# Device call J (H100), wave 7: the suite's 4096³ and 3001x1000x4097 picks, seen through `tune`
# (every candidate's search outcome) with bench's default families, after 1024³ and 2048³ in
# the same process as in the suite, twice.
set -u
rm -rf build && tar -xJf carry/build.tar.xz -C /tmp && mv /tmp/pack build
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; O=build/autotuner/occtune
for i in 1 2; do
  timeout 90 $O tune --kernel coarsened --kernel regblocked --kernel pipelined --kernel splitk \
    --kernel streamk --kernel tma --kernel repacked --shape 1024x1024x1024 --shape 2048x2048x2048 \
    --shape 4096x4096x4096 --shape 3001x1000x4097 --db /tmp/j$i.db > "$R/tune-$i.txt" 2>&1
  echo "run $i rc=$?"
  grep -E "^shape|^ *(tma|repacked|pipelined) " "$R/tune-$i.txt" | grep -E "^shape|TmaGemm|consumer_regs|pipelined .*<-" | awk '{$3=$3; print}' | cut -c1-60,150-330
done
