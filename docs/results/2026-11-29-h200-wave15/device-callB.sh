#!/usr/bin/env bash
# Device call B (one H200): skinny's rings with whole slabs copied without tests (carry/commit)
# against wave 14's final build (abce03f), alternated twice (carry/slim-*.tar.xz: occtune and its
# libraries only, since two whole builds and the tree pass the carry limit): every
# skinny candidate at seven M or N <= 16 shapes (tune --strategy exhaustive --wide). Nsight
# Compute's instruction count and duration of the N <= 16 ring and the M = 16 ring, new build.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callB; mkdir -p $W; T=$R/results.txt
tar -xJf carry/slim-before.tar.xz -C /tmp && tar -xJf carry/slim-after.tar.xz -C /tmp
{ date -u; echo "before: abce03f; after: $(cat carry/commit)"; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader; } > $T 2>&1
for round in 1 2; do
  for build in before after; do
    O=/tmp/$build/autotuner/occtune
    for shape in 8192x16x8192 16384x16x16384 8192x8x8192 16x8192x8192 16x16384x16384 \
                 8x8192x8192 1x4097x4097; do
      echo "== $build $round $shape" >> $T
      timeout 40 $O tune --kernel skinny --shape $shape --strategy exhaustive --wide \
        --db /tmp/ex-$build.db > $W/ex-$build$round-$shape.txt 2>&1
      grep -E "^skinny|^cublas" $W/ex-$build$round-$shape.txt | awk '{print $1, $2, $6, $10, $15}' \
        | sort -k4 -n | head -3 >> $T
    done
  done
done
O=/tmp/after/autotuner/occtune
for k in 'SkinnyPipeSmallNILi16ELi16ELi256ELi3E 8192x16x8192' 'SkinnyPipeILi16ELi32ELi128ELi4E 16x8192x8192'; do
  set -- $k
  timeout 60 ncu --clock-control none --kernel-name-base mangled -k "regex:$1" --launch-skip 3 \
    --launch-count 1 --metrics smsp__inst_executed.sum,gpu__time_duration.sum,sm__inst_executed_pipe_fma.sum \
    $O tune --kernel skinny --shape $2 --strategy exhaustive --wide --db /tmp/ncu.db --quiet \
    > $W/ncu-$2.txt 2>&1
  echo "== ncu $1 $2" >> $T; grep -E "inst_executed|duration" $W/ncu-$2.txt >> $T
done
tar -czf "$R/callB.tgz" -C /tmp callB
cat $T
