#!/bin/bash
# Issue #14's speed figures on a GPU machine: the source-kernel example (148 configurations of
# examples/source_kernel/stencil.toml) tuned twice, cold (an empty kernel cache) and warm (the
# cache the cold run filled), each into a fresh store so both measure the same candidates. Prints
# per run the process's wall time, the compile time and the measuring time tune reported, and
# the share of wall time spent compiling (the issue asks under 10% warm).
# Usage: scripts/source-kernel-timing.sh [OCCTUNE [PROBLEM]]   (default build/autotuner/occtune nx=4096,ny=4096)
set -eu
occtune=${1:-build/autotuner/occtune}
problem=${2:-nx=4096,ny=4096}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OCCTUNE_KERNEL_CACHE=$work/kernels
"$occtune" --version | head -1
for run in cold warm; do
  start=$(date +%s.%N)
  "$occtune" tune --config "$root/examples/source_kernel/stencil.toml" --problem "$problem" \
    --db "$work/$run.db" --format json --quiet >"$work/$run.json" 2>"$work/$run.err" \
    || { cat "$work/$run.err"; exit 4; }
  end=$(date +%s.%N)
  grep "compiled " "$work/$run.err" || true
  python3 - "$work/$run.json" "$run" "$start" "$end" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
run, wall = sys.argv[2], float(sys.argv[4]) - float(sys.argv[3])
for shape in doc["shapes"]:
    for k in shape["kernels"]:
        n = len(k["candidates"])
        ok = sum(c["outcome"] == "ok" for c in k["candidates"])
        w = k["winner"]
        best = k["candidates"][w] if w >= 0 else None
        print(f"{run}: {k['kernel']} at {shape['shape']}: {n} configurations ({ok} ok), "
              f"wall {wall:.2f} s (process), compile {k['compile_s']:.2f} s, "
              f"measure {k['wall_s']:.2f} s, compiling {100 * k['compile_s'] / wall:.1f}% of "
              f"wall; winner {best['variant'] if best else 'none'}"
              + (f" {best['timing']['median_ms']:.4f} ms" if best else ""))
PY
done
