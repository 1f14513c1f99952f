#!/usr/bin/env bash
# Issue #18 benchmark, on a GPU: `occtune bench --suite configs/bench/suite.txt` (53 shapes: the
# 12 defaults, every category of the issue, 20 log-uniform random shapes), logged with the
# command, the commit, the GPU and its clocks (before, during at 1 s, after). It checks its own
# result: exit 0 only when the bench exited 0 and printed a row for every suite shape and the
# geometric mean. Run it twice for the two runs the issue asks for.
#
#   scripts/bench-suite.sh [-b OCCTUNE] [-s SUITE] [-o OUTDIR] [-- BENCH ARGS...]
#
# OUTDIR defaults to $OUT/bench-suite (the device machine's result folder), else
# build/bench-suite; each run writes OUTDIR/<UTC time>/ with command.txt, env.txt (commit, GPU,
# clocks before and after), bench.json (everything the bench measured), summary.txt (a table of
# it: interleaved ratio and interval, race ratio, TFLOP/s, operand and A+B TB/s, clock ranges,
# re-verification, each family's race ratio; geometric means; the self-check), stderr.txt
# (progress) and clocks.csv (nvidia-smi during the run). The bench is stopped with SIGINT after
# BENCH_TIMEOUT seconds (default 540, under a 10-minute device call), which makes it write what
# it measured (exit 130; the self-check then fails and lists the missing shapes).
set -euo pipefail
cd "$(dirname "$0")/.."
occtune=./build/autotuner/occtune
suite=configs/bench/suite.txt
out=${OUT:+$OUT/bench-suite}
out=${out:-build/bench-suite}
while getopts "b:s:o:" opt; do
  case $opt in
    b) occtune=$OPTARG ;;
    s) suite=$OPTARG ;;
    o) out=$OPTARG ;;
    *) echo "usage: $0 [-b OCCTUNE] [-s SUITE] [-o OUTDIR] [-- BENCH ARGS...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ -x "$occtune" ] || { echo "bench-suite.sh: no occtune at $occtune; build it or pass -b" >&2; exit 2; }
[ -f "$suite" ] || { echo "bench-suite.sh: no suite file $suite; pass -s" >&2; exit 2; }
"$occtune" devices >/dev/null || { echo "bench-suite.sh: no GPU visible to $occtune" >&2; exit 4; }

dir="$out/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$dir"
query=timestamp,name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,clocks_throttle_reasons.active
smi() { nvidia-smi --query-gpu="$query" --format=csv "$@" 2>/dev/null || echo "nvidia-smi unavailable"; }
cmd=("$occtune" bench --suite "$suite" --format json --output "$dir/bench.json" "$@")
{
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (working tree differs)')"
  echo "occtune: $("$occtune" --version)"
  echo "host: $(hostname), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,uuid,driver_version,memory.total --format=csv 2>/dev/null || true
  echo "clocks before:"; smi
} >"$dir/env.txt"
printf '%q ' "${cmd[@]}" >"$dir/command.txt"
echo >>"$dir/command.txt"

smi -l 1 >"$dir/clocks.csv" &
sampler=$!
start=$(date +%s.%N)
rc=0
timeout -s INT "${BENCH_TIMEOUT:-540}" "${cmd[@]}" 2>"$dir/stderr.txt" || rc=$?
seconds=$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$start" "$(date +%s.%N)")
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
{ echo "clocks after:"; smi; } >>"$dir/env.txt"

# The table from the same run's JSON (one bench, two forms), then the self-check.
python3 - "$dir/bench.json" "$suite" "$rc" "$seconds" >"$dir/summary.txt" <<'PY' || { [ "$rc" != 0 ] || rc=1; }
import json, sys
path, suite, rc, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
want = [l.split("#")[0].split()[0] for l in open(suite) if l.split("#")[0].split()]
try:
    doc = json.load(open(path))
except Exception as e:
    print(f"bench-suite: no JSON from the bench ({e}); occtune exit {rc}")
    sys.exit(1)
rows = doc["shapes"]
def r(x, digits=3): return "-" if x is None else f"{x:.{digits}f}"
def mhz(c): return "-" if not c else (f"{c[0]}" if c[0] == c[1] else f"{c[0]}-{c[1]}")
print(f"{'shape':<18} {'category':<10} {'tuned/cuBLAS':>12} {'95% interval':>13} {'race':>6} "
      f"{'TFLOP/s':>8} {'cuBLAS':>7} {'TB/s':>5} {'A+B':>5} {'best':<10} {'MHz cuBLAS':>11} {'MHz best':>10}  {'re-verified':<11} race ratio per family")
for s in rows:
    i = s["interleaved"]
    ci = i["ratio_ci"]
    print(f"{s['shape']:<18} {s['category'] or '-':<10} {r(s['ratio_to_cublas']):>12} "
          f"{(f'{ci[0]:.3f}-{ci[1]:.3f}' if ci else '-'):>13} {r(s['race_ratio_to_cublas']):>6} "
          f"{r(s['tflops'], 1):>8} {r(s['cublas_tflops'], 1):>7} {r(s['operand_tbps'], 2):>5} "
          f"{r(s.get('read_tbps'), 2):>5} "
          f"{s['best_kernel'] or '-':<10} {mhz(i['cublas_clock_mhz']):>11} {mhz(i['best_clock_mhz']):>10}  "
          f"{(s['reverified'] or {}).get('outcome', '-'):<11} "
          + " ".join(f"{k} {r(f['ratio_to_cublas']) if f else '-'}" for k, f in s["families"].items()))
print(f"geometric mean (interleaved) {doc['geomean_ratio']:.3f} over {len(rows)} shapes; "
      f"from the races {doc['geomean_race_ratio']:.3f}; {seconds} s; occtune exit {rc}")
missing = [w for w in want if w not in {s["shape"] for s in rows}]
bad = [s["shape"] for s in rows if s["ratio_to_cublas"] is None
       or (s["reverified"] or {}).get("outcome") != "ok"]
ok = rc == 0 and not missing and not bad and doc["geomean_ratio"] > 0
print(f"self-check: {'PASS' if ok else 'FAIL'} ({len(rows)}/{len(want)} shapes"
      + (f"; missing {missing}" if missing else "") + (f"; no ratio or not re-verified: {bad}" if bad else "") + ")")
sys.exit(0 if ok else 1)
PY
cat "$dir/summary.txt"
echo "bench-suite.sh: results in $dir" >&2
exit "$rc"
