#!/usr/bin/env bash
# Device call (H100), wave 7, issue #18 "tuning within 2 s" (docs/architecture.md): run from the
# repository root after the build is unpacked into ./build. The main job with the new default
# (one-sample probe, abandon at 1.25x / behind at 1.05x, one warm-up launch), the same job with
# --warmup 3 (what the warm-up change alone buys), bench-search (default against exhaustive,
# every family of the default job) on the main job's shapes, and the first-sample check (does
# one warm-up launch leave a cold first sample?). Outputs go to $OUT; under 4 minutes.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT
O=build/autotuner/occtune
{ date -u; git rev-parse HEAD 2>/dev/null; $O --version; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; } > "$R/env.txt" 2>&1
start=$(date +%s)
timeout 60 $O tune --db /tmp/main-job.db > "$R/main-job.txt" 2> "$R/main-job.err"
echo "main job rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
start=$(date +%s)
timeout 60 $O tune --warmup 3 --db /tmp/main-job-w3.db > "$R/main-job-warmup3.txt" 2> "$R/main-job-warmup3.err"
echo "main job --warmup 3 rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
families=tiled_dynamic,tiled_static,naive,coarsened,regblocked,pipelined,splitk,skinny,streamk,tma,repacked
start=$(date +%s)
timeout 170 bash scripts/bench-search.sh -b $O -k "$families" -m 4 -r 0 -o /tmp/bs \
  1024x1024x1024 4096x4096x4096 3001x1000x4097 > "$R/bench-search.out" 2>&1
echo "bench-search rc=$? in $(( $(date +%s) - start )) s" >> "$R/steps.txt"
# The first sample of each candidate against its median, in the default and exhaustive runs
# (one warm-up launch: a cold first sample would show as a ratio well above 1).
python3 - > "$R/first-sample.txt" 2>&1 <<'PY'
import glob, json, statistics as st
for path in sorted(glob.glob('/tmp/bs/*.json')):
    if path.endswith('summary.json'): continue
    d = json.load(open(path)); r = []
    for k in d['shapes'][0]['kernels']:
        for c in k['candidates']:
            s = c['samples_ms']
            if len(s) >= 3: r.append(s[0] / st.median(s))
    if r:
        print('%s: %d candidates with >= 3 samples, first/median mean %.4f max %.4f, > 1.05: %d'
              % (path.split('/')[-1], len(r), st.mean(r), max(r), sum(x > 1.05 for x in r)))
PY
tar -czf "$R/bench-search.tgz" -C /tmp bs
cat "$R/env.txt" "$R/steps.txt"
grep -E "^strategy|shape wall time|tuning wall" "$R/main-job.txt"
grep -E "shape wall time|tuning wall" "$R/main-job-warmup3.txt"
grep -E "tuning wall|within 1%|issue #18 target|all shapes" "$R/bench-search.out"
cat "$R/first-sample.txt"
