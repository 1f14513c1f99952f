#!/usr/bin/env bash
# Device call A (one H200), 2026-11-29 third session. Before: 3aa892c (carry/build-3aa892c.tar.xz,
# the last session's final kernels); after: carry/build.tar.xz (carry/commit: skinny's realigned
# windows for misaligned S = 1 rows, and the default job without a warm-up launch). The M = 1
# misaligned set, the gemv sets alternated twice (before/after); the misaligned set in layout tn
# once each; every skinny candidate at 1x4097x4097 and 1x1001x5003 (after); then with the after
# build the main job twice as built (warm-up 0) and twice with --warmup 1, alternated;
# bench-search (default against exhaustive, every family) on the main job's shapes; the first
# sample of each candidate against its median. Everything goes into callA.tgz and results.txt.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT; W=/tmp/callA; mkdir -p $W; T=$R/results.txt
D=docs/results/2026-11-29-h200-wave11; D10=docs/results/2026-11-29-h200-wave10
D9=docs/results/2026-11-29-h200-wave9
O=$PWD/build-h100/autotuner/occtune
step() { echo "$1 rc=$2 in $3 s" >> "$W/steps.txt"; }
unpack() { rm -rf build-h100 /tmp/pack && tar -xJf "$1" -C /tmp && mv /tmp/pack build-h100; }
sets() {  # $1: before or after, $2: round
  for set in $D/misaligned-gemv-suite $D10/gemv2-suite $D9/gemv-suite; do
    s=$(date +%s); n=$(basename $set)
    BENCH_TIMEOUT=60 timeout 80 bash scripts/bench-suite.sh -b $O -s $set.txt -o $W/$1$2-$n > "$W/$1$2-$n.out" 2>&1
    step "$1$2 $n" $? $(( $(date +%s) - s ))
  done
  if [ "$2" = 1 ]; then
    s=$(date +%s)
    BENCH_TIMEOUT=60 timeout 80 bash scripts/bench-suite.sh -b $O -s $D/misaligned-gemv-suite.txt -o $W/$1-tn -- --layout tn > "$W/$1-tn.out" 2>&1
    step "$1 misaligned tn" $? $(( $(date +%s) - s ))
  fi
}
{ date -u; echo "before: 3aa892c; after: $(cat carry/commit)"; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader; } > "$W/env.txt" 2>&1
for round in 1 2; do
  unpack carry/build-3aa892c.tar.xz; sets before $round
  unpack carry/build.tar.xz; sets after $round
done
$O --version >> "$W/env.txt" 2>&1
for x in 1x4097x4097 1x1001x5003; do
  s=$(date +%s)
  timeout 60 $O tune --kernel skinny --shape $x --strategy exhaustive --wide --db /tmp/ex-$x.db > $W/exhaustive-$x.txt 2>&1
  step "exhaustive $x" $? $(( $(date +%s) - s ))
done
for i in 1 2; do
  s=$(date +%s)
  timeout 40 $O tune --db /tmp/main$i.db --quiet > $W/main-job$i.txt 2>&1
  step "main-job $i (warm-up 0)" $? $(( $(date +%s) - s ))
  s=$(date +%s)
  timeout 40 $O tune --warmup 1 --db /tmp/main-w1-$i.db --quiet > $W/main-job-warmup1-$i.txt 2>&1
  step "main-job $i --warmup 1" $? $(( $(date +%s) - s ))
done
families=tiled_dynamic,tiled_static,naive,coarsened,regblocked,pipelined,splitk,skinny,streamk,tma,repacked
s=$(date +%s)
timeout 200 bash scripts/bench-search.sh -b $O -k "$families" -m 4 -r 0 -o $W/bs \
  1024x1024x1024 4096x4096x4096 3001x1000x4097 > "$W/bench-search.out" 2>&1
step bench-search $? $(( $(date +%s) - s ))
python3 - > "$W/first-sample.txt" 2>&1 <<'PY'
import glob, json, statistics as st
for path in sorted(glob.glob('/tmp/callA/bs/*.json')):
    if path.endswith('summary.json'): continue
    d = json.load(open(path)); r = []
    for k in d['shapes'][0]['kernels']:
        for c in k['candidates']:
            s = c.get('samples_ms') or c.get('timing', {}).get('samples_ms') or []
            if len(s) >= 3: r.append(s[0] / st.median(s))
    if r:
        print('%s: %d candidates with >= 3 samples, first/median mean %.4f max %.4f, > 1.05: %d'
              % (path.split('/')[-1], len(r), st.mean(r), max(r), sum(x > 1.05 for x in r)))
PY
{ cat "$W/env.txt" "$W/steps.txt"
  for x in $W/exhaustive-*.txt; do echo "== $x"; grep -E "^skinny|^kernel" $x | cut -c1-200; done
  for f in main-job1 main-job-warmup1-1 main-job2 main-job-warmup1-2; do echo "== $f"; grep -E "shape wall time|tuning wall" $W/$f.txt; done
  grep -E "tuning wall|within 1%|issue #18 target|all shapes|^shape" "$W/bench-search.out"
  cat "$W/first-sample.txt"
  for r in $(cd $W && ls -d before* after* | grep -v '\.out$'); do
    echo "== $r"; cut -c1-150 $W/$r/*/summary.txt; done; } > "$T" 2>&1
tar -czf "$R/callA.tgz" -C /tmp callA
grep -E "rc=|wall|geometric|within|first/median" "$T"
