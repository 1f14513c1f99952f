#!/usr/bin/env bash
# Device call F (wave 21, one H200): call D's build (carry/commit). bench-search on the main
# job's shapes, every family (tma's sk 3 among them): the default strategy against exhaustive
# (issue #18: within 1% of exhaustive), as wave 11's call A ran it.
set -u
. scripts/device-call-setup.sh callF
families=tiled_dynamic,tiled_static,naive,coarsened,regblocked,pipelined,splitk,skinny,streamk,tma,repacked
s=$(date +%s)
timeout 220 bash scripts/bench-search.sh -b $O -k "$families" -m 4 -r 0 -o $W/bs \
  1024x1024x1024 4096x4096x4096 3001x1000x4097 > "$W/bench-search.out" 2>&1
step bench-search $? $(( $(date +%s) - s ))
cat $W/bs/summary.txt >> $T 2>&1
tar -czf "$R/callF.tgz" -C /tmp callF
cat "$T" | cut -c1-180
